package multikueue

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"
)

func config(name string, clusters ...string) *kueue.MultiKueueConfig {
	return &kueue.MultiKueueConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueue.MultiKueueConfigSpec{Clusters: clusters}}
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
