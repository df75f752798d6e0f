package localstack

import (
	"crypto/x509"
	"encoding/pem"
	"testing"
)

// A front that serves a cluster on a kept control plane sends its certificate with the cluster's CA cross-signed by
// the plane's: a client that trusts the cluster's CA (GetCluster) and one that trusts the plane's (a token Secret's
// ca.crt) both verify it, and one that trusts neither does not.
func TestCrossSignedChain(t *testing.T) {
	plane, err := newCA("plane")
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := newCA("cluster")
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := newCA("stranger")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := cluster.serving("kube-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	cross, err := plane.crossSign(cluster)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(cross)
	crossCert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	intermediates := x509.NewCertPool()
	intermediates.AddCert(crossCert)
	for _, c := range []struct {
		name  string
		root  *keyPair
		trust bool
	}{{"cluster's CA", cluster, true}, {"plane's CA", plane, true}, {"another CA", stranger, false}} {
		roots := x509.NewCertPool()
		roots.AddCert(c.root.parsed)
		_, err := leaf.parsed.Verify(x509.VerifyOptions{Roots: roots, Intermediates: intermediates, DNSName: "localhost"})
		if (err == nil) != c.trust {
			t.Errorf("a client trusting the %s: verified %v, want %v (%v)", c.name, err == nil, c.trust, err)
		}
	}
}
