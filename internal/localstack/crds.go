package localstack

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// conversionCRDs are the Kueue CRDs that serve several versions through Kueue's conversion webhook. Without it,
// fields that exist in one version only would be dropped silently.
var conversionCRDs = map[string]bool{
	"localqueues.kueue.x-k8s.io": true, "clusterqueues.kueue.x-k8s.io": true, "cohorts.kueue.x-k8s.io": true,
	"workloads.kueue.x-k8s.io": true, "multikueueclusters.kueue.x-k8s.io": true,
}

// readManifests reads every object of a multi-document YAML file.
func readManifests(path string) ([]*unstructured.Unstructured, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 64*1024)
	var out []*unstructured.Unstructured
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if len(obj) > 0 {
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
}

// installCRDs creates the CRDs, pointing Kueue's conversion webhooks at webhookURL, and waits until all are Established.
func installCRDs(ctx context.Context, dyn dynamic.Interface, files []string, webhookURL string, caPEM []byte) error {
	var names []string
	for _, f := range files {
		objs, err := readManifests(f)
		if err != nil {
			return err
		}
		for _, crd := range objs {
			if conversionCRDs[crd.GetName()] {
				conv := map[string]any{
					"strategy": "Webhook",
					"webhook": map[string]any{
						"clientConfig":             map[string]any{"url": webhookURL + "/convert", "caBundle": base64.StdEncoding.EncodeToString(caPEM)},
						"conversionReviewVersions": []any{"v1"},
					},
				}
				if err := unstructured.SetNestedMap(crd.Object, conv, "spec", "conversion"); err != nil {
					return err
				}
			}
			if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating CRD %s: %w", crd.GetName(), err)
			}
			names = append(names, crd.GetName())
		}
	}
	for _, n := range names {
		if err := waitEstablished(ctx, dyn, n); err != nil {
			return err
		}
	}
	return nil
}

func waitEstablished(ctx context.Context, dyn dynamic.Interface, name string) error {
	for {
		crd, err := dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRD %s not Established: %w", name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
