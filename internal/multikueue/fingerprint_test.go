package multikueue

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestFingerprint(t *testing.T) {
	kc := Kubeconfig("https://127.0.0.1:6443", []byte("ca"), []byte("secret-token"))
	f, err := NewFingerprint(kc)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Matches(kc) {
		t.Error("the kubeconfig does not match its own fingerprint")
	}
	other := Kubeconfig("https://127.0.0.1:6443", []byte("ca"), []byte("other-token"))
	if f.Matches(other) {
		t.Error("another token matches")
	}
	if (Fingerprint{}).Matches(kc) {
		t.Error("an empty fingerprint matches")
	}
	g, err := NewFingerprint(kc)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(f.MAC, g.MAC) {
		t.Error("two fingerprints of one kubeconfig are equal: the salt is not random")
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("secret-token")) {
		t.Errorf("the stored form holds the token: %s", b)
	}
	var back Fingerprint
	if err := json.Unmarshal(b, &back); err != nil || !back.Matches(kc) {
		t.Errorf("the stored form does not round-trip (%v)", err)
	}
}
