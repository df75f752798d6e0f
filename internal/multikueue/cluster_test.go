package multikueue

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"
)

func config(name string, clusters ...string) *kueue.MultiKueueConfig {
	return utiltesting.MakeMultiKueueConfig(name).Clusters(clusters...).Obj()
}

func TestLeaveConfig(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		cfg     *kueue.MultiKueueConfig
		want    []string
		wantErr error
	}{
		"the middle one":      {cfg: config("cfg", "a", "b", "c"), want: []string{"a", "c"}},
		"not listed":          {cfg: config("cfg", "a", "c"), want: []string{"a", "c"}},
		"the only one stays":  {cfg: config("cfg", "b"), want: []string{"b"}, wantErr: ErrLastWorker},
		"another config only": {cfg: config("other", "b", "c")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			kq := kueuefake.NewSimpleClientset(tc.cfg)
			err := LeaveConfig(context.Background(), kq, "cfg", "b", "test")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("LeaveConfig: %v, want %v", err, tc.wantErr)
			}
			got, err := FindConfig(context.Background(), kq, "cfg")
			if err != nil {
				t.Fatal(err)
			}
			var clusters []string
			if got != nil {
				clusters = got.Spec.Clusters
			}
			if diff := cmp.Diff(tc.want, clusters); diff != "" {
				t.Errorf("clusters (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLeaveConfigRaced: another worker leaves between the read and the patch (two destroys of one apply); the patch
// made from the stale read is refused, and the second one, made from a fresh read, removes the right item.
func TestLeaveConfigRaced(t *testing.T) {
	t.Parallel()
	cfg := config("cfg", "a", "b", "c")
	cfg.ResourceVersion = "1"
	kq := kueuefake.NewSimpleClientset(cfg)
	raced := false
	kq.PrependReactor("patch", "multikueueconfigs", func(k8stesting.Action) (bool, runtime.Object, error) {
		if !raced {
			raced = true
			other := config("cfg", "a", "c")
			other.ResourceVersion = "2"
			if err := kq.Tracker().Update(kueue.GroupVersion.WithResource("multikueueconfigs"), other, ""); err != nil {
				t.Fatal(err)
			}
		}
		return false, nil, nil
	})
	if err := LeaveConfig(context.Background(), kq, "cfg", "c", "test"); err != nil {
		t.Fatalf("LeaveConfig: %v", err)
	}
	got, err := FindConfig(context.Background(), kq, "cfg")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a"}, got.Spec.Clusters); diff != "" {
		t.Errorf("clusters (-want +got):\n%s", diff)
	}
}

func TestJoinConfig(t *testing.T) {
	t.Parallel()
	kq := kueuefake.NewSimpleClientset(config("cfg", "a"))
	for range 2 { // the second finds it listed
		if err := JoinConfig(context.Background(), kq, "cfg", "b", "test"); err != nil {
			t.Fatalf("JoinConfig: %v", err)
		}
	}
	got, err := FindConfig(context.Background(), kq, "cfg")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, got.Spec.Clusters); diff != "" {
		t.Errorf("clusters (-want +got):\n%s", diff)
	}
	if err := JoinConfig(context.Background(), kq, "gone", "b", "test"); err != nil {
		t.Errorf("JoinConfig of a config that is gone: %v, want nothing done", err)
	}
}
