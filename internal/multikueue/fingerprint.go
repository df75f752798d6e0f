package multikueue

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
)

// Fingerprint stands for a kubeconfig the user brought, which holds a bearer token and so is never stored: a salted
// hash, so that equal kubeconfigs do not hash alike across resources or states. The salt is stored beside it, so it
// does not slow a guess of a weak token; service-account and OAuth tokens are long random strings. A refresh
// compares the manager's Secret with it.
type Fingerprint struct {
	Salt []byte `json:"salt"`
	MAC  []byte `json:"hmac_sha256"`
}

// NewFingerprint draws a new salt for kubeconfig.
func NewFingerprint(kubeconfig []byte) (Fingerprint, error) {
	salt := make([]byte, 32)
	if _, err := rand.Read(salt); err != nil {
		return Fingerprint{}, fmt.Errorf("drawing a salt: %w", err)
	}
	return Fingerprint{Salt: salt, MAC: mac(salt, kubeconfig)}, nil
}

// Matches reports whether kubeconfig is the one f was made from.
func (f Fingerprint) Matches(kubeconfig []byte) bool {
	return len(f.Salt) > 0 && hmac.Equal(f.MAC, mac(f.Salt, kubeconfig))
}

func mac(salt, kubeconfig []byte) []byte {
	h := hmac.New(sha256.New, salt)
	h.Write(kubeconfig)
	return h.Sum(nil)
}
