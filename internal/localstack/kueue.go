package localstack

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

const kueueNamespace = "kueue-system"

// kueueCerts pre-seeds what Kueue's internal cert rotator expects, so it finds "no cert refresh needed" and serves
// our certificate: a CA with SAN kueue-ca (PKCS#1 key) and a serving certificate for the webhook service and loopback.
type kueueCerts struct {
	ca, serving *keyPair
}

func newKueueCerts() (*kueueCerts, error) {
	ca, err := newCA("kueue-ca", "kueue-ca")
	if err != nil {
		return nil, err
	}
	serving, err := ca.serving("kueue-webhook-service.kueue-system.svc", "kueue-webhook-service.kueue-system.svc")
	if err != nil {
		return nil, err
	}
	return &kueueCerts{ca: ca, serving: serving}, nil
}

func (c *kueueCerts) files() map[string][]byte {
	return map[string][]byte{"ca.crt": c.ca.cert, "ca.key": c.ca.key, "tls.crt": c.serving.cert, "tls.key": c.serving.key}
}

// kueueConfig is the manager's Configuration: the tutorial's feature gate, the RayJob and RayCluster integrations,
// the chart's concurrency and client rate, everything bound to loopback.
func kueueConfig(healthPort, metricsPort, webhookPort int, certDir string) string {
	return fmt.Sprintf(`apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: %[5]s
health:
  healthProbeBindAddress: 127.0.0.1:%[1]d
metrics:
  bindAddress: 127.0.0.1:%[2]d
webhook:
  host: 127.0.0.1
  port: %[3]d
  certDir: %[4]s
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: true
  webhookServiceName: kueue-webhook-service
  webhookSecretName: kueue-webhook-server-cert
# As the tutorial's install (Kueue's Helm chart) runs the manager, for the kinds the stack enables: five Workload
# reconcilers and a client rate of 50 a second, burst 100, where the binary alone defaults to one reconciler and 20,
# burst 30. (The chart's Job.batch and Pod entries are for integrations the stack does not enable.)
controller:
  groupKindConcurrency:
    Workload.kueue.x-k8s.io: 5
    LocalQueue.kueue.x-k8s.io: 1
    ClusterQueue.kueue.x-k8s.io: 1
    ResourceFlavor.kueue.x-k8s.io: 1
clientConnection:
  qps: 50
  burst: 100
integrations:
  frameworks:
  - ray.io/rayjob
  - ray.io/raycluster
multiKueue:
  # Kueue's default is 15 minutes; the local stack re-dispatches a lost worker's jobs sooner.
  workerLostTimeout: 30s
featureGates:
  ElasticJobsViaWorkloadSlices: true
  VisibilityOnDemand: false
`, healthPort, metricsPort, webhookPort, certDir, kueueNamespace)
}

// prepareKueue writes the certificates (in certDir and as the Secret the rotator reads) and the webhook
// configurations, with each webhook's service replaced by the loopback URL.
func prepareKueue(ctx context.Context, core corev1client.CoreV1Interface, dyn dynamic.Interface, kueueDir, certDir string, certs *kueueCerts, webhookURL string) error {
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return err
	}
	for name, b := range certs.files() {
		if err := os.WriteFile(filepath.Join(certDir, name), b, 0o600); err != nil {
			return err
		}
	}
	if _, err := core.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kueueNamespace}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", kueueNamespace, err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kueue-webhook-server-cert", Namespace: kueueNamespace}, Data: certs.files()}
	if _, err := core.Secrets(kueueNamespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the webhook certificate secret: %w", err)
	}
	objs, err := readManifests(filepath.Join(kueueDir, "config/components/webhook/manifests.yaml"))
	if err != nil {
		return err
	}
	caBundle := base64.StdEncoding.EncodeToString(certs.ca.cert)
	for _, obj := range objs {
		kind := obj.GetKind()
		var gvr schema.GroupVersionResource
		switch kind {
		case "MutatingWebhookConfiguration":
			obj.SetName("kueue-mutating-webhook-configuration")
			gvr = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}
		case "ValidatingWebhookConfiguration":
			obj.SetName("kueue-validating-webhook-configuration")
			gvr = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}
		default:
			continue
		}
		hooks, _, _ := unstructured.NestedSlice(obj.Object, "webhooks")
		var kept []any
		for _, h := range hooks {
			m, ok := h.(map[string]any)
			if !ok {
				continue
			}
			path, _, _ := unstructured.NestedString(m, "clientConfig", "service", "path")
			// Only the frameworks the stack enables: Kueue's own objects, RayJobs and RayClusters. The other
			// frameworks' hooks would refuse those objects, since their handlers are not registered.
			if !strings.Contains(path, "-kueue-x-k8s-io-") && !strings.HasSuffix(path, "-ray-io-v1-rayjob") && !strings.HasSuffix(path, "-ray-io-v1-raycluster") {
				continue
			}
			m["clientConfig"] = map[string]any{"url": webhookURL + path, "caBundle": caBundle}
			kept = append(kept, m)
		}
		if err := unstructured.SetNestedSlice(obj.Object, kept, "webhooks"); err != nil {
			return err
		}
		if _, err := dyn.Resource(gvr).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating %s: %w", kind, err)
		}
	}
	return nil
}
