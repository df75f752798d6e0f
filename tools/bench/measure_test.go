package main

import (
	"os"
	"os/exec"
	"testing"
)

func TestDescendsFrom(t *testing.T) {
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if !descendsFrom(cmd.Process.Pid, os.Getpid()) {
		t.Error("a child of this process was not counted as its descendant")
	}
	if descendsFrom(os.Getppid(), os.Getpid()) {
		t.Error("this process's parent was counted as its descendant")
	}
}
