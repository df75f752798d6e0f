package localstack

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// keyPair is a certificate and its key, PEM-encoded.
type keyPair struct {
	cert, key []byte
	parsed    *x509.Certificate
	priv      *rsa.PrivateKey
}

// newCA makes a self-signed CA. dnsNames go into its SANs (Kueue's cert rotator checks for DNS:kueue-ca).
func newCA(cn string, dnsNames ...string) (*keyPair, error) {
	return issue(nil, &x509.Certificate{
		Subject:               pkix.Name{CommonName: cn},
		DNSNames:              dnsNames,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		IsCA:                  true,
		BasicConstraintsValid: true,
	})
}

// serving issues a TLS serving certificate for loopback and the given DNS names.
func (ca *keyPair) serving(cn string, dnsNames ...string) (*keyPair, error) {
	return issue(ca, &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		DNSNames:    append([]string{"localhost"}, dnsNames...),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}

// crossSign certifies other's CA under this one (same subject and key, this CA as issuer), PEM-encoded: sent as an
// intermediate, it lets a client that trusts this CA verify what other signed.
func (ca *keyPair) crossSign(other *keyPair) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	o := other.parsed
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: o.Subject, SubjectKeyId: o.SubjectKeyId,
		NotBefore: o.NotBefore, NotAfter: o.NotAfter,
		KeyUsage: o.KeyUsage, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.parsed, &other.priv.PublicKey, ca.priv)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

func issue(parent *keyPair, tmpl *x509.Certificate) (*keyPair, error) {
	// RSA with PKCS#1 keys: Kueue's rotator reads the CA key in that form.
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(365 * 24 * time.Hour)
	signer, signerKey := tmpl, priv
	if parent != nil {
		signer, signerKey = parent.parsed, parent.priv
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &priv.PublicKey, signerKey)
	if err != nil {
		return nil, err
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &keyPair{
		cert:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		key:    pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(priv)}),
		parsed: parsed,
		priv:   priv,
	}, nil
}

func publicKeyPEM(k *keyPair) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(&k.priv.PublicKey)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return fmt.Sprintf("local-%x", b), nil
}
