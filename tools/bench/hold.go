package main

import (
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

// holdStack applies the stack with n RayJobs and keeps it up until interrupted. It writes env.sh beside the
// configuration so that terraform can be run there by hand (perf, TF_LOG, a rebuilt provider at the same path).
func (b *bench) holdStack(dir string, n int) error {
	tf, err := newWorkdir(dir, b.binary, stackConfig(n), b.env)
	if err != nil {
		return err
	}
	log.Printf("N=%d: apply", n)
	if err := tf.run("apply", "-auto-approve"); err != nil {
		return err
	}
	var env strings.Builder
	for _, kv := range append(b.env, "TF_CLI_CONFIG_FILE="+filepath.Join(dir, "dev.tfrc")) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&env, "export %s=%q\n", k, v)
	}
	if err := os.WriteFile(filepath.Join(dir, "env.sh"), []byte(env.String()), 0o600); err != nil {
		return err
	}
	log.Printf("held: cd %s && . ./env.sh && terraform plan; interrupt to stop", dir)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return nil
}
