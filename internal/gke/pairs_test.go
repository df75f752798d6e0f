package gke

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
)

// pool builds a node pool of the tests: machine type, TPU topology and how its VMs come.
type pool struct{ np *containerpb.NodePool }

func makePool(machine, topology string) pool {
	return pool{&containerpb.NodePool{Config: &containerpb.NodeConfig{MachineType: machine},
		PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: topology}}}
}
func (p pool) queued() pool {
	p.np.QueuedProvisioning = &containerpb.NodePool_QueuedProvisioning{Enabled: true}
	return p
}
func (p pool) flexStart() pool            { p.np.Config.FlexStart = ptr(true); return p }
func (p pool) spot() pool                 { p.np.Config.Spot = true; return p }
func (p pool) obj() *containerpb.NodePool { return p.np }

func ptr[T any](v T) *T { return &v }

func TestPairs(t *testing.T) {
	tpu := func(np *containerpb.NodePool) bool { return np.GetConfig().GetMachineType()[:2] == "ct" }
	cases := []struct {
		name  string
		pools map[string]*containerpb.NodePool
		want  []Pair
	}{
		{"the tutorial's", map[string]*containerpb.NodePool{
			"default-pool": makePool("e2-standard-4", "").obj(),
			"od":           makePool("ct6e-standard-4t", "4x4").obj(),
			"dws":          makePool("ct6e-standard-4t", "4x4").queued().flexStart().obj(),
		}, []Pair{{"od", "dws"}}},
		{"flex-start without queued provisioning", map[string]*containerpb.NodePool{
			"od":  makePool("ct6e-standard-4t", "2x2").obj(),
			"dws": makePool("ct6e-standard-4t", "2x2").flexStart().obj(),
		}, []Pair{{"od", "dws"}}},
		{"another topology is no partner", map[string]*containerpb.NodePool{
			"od":  makePool("ct6e-standard-4t", "4x4").obj(),
			"dws": makePool("ct6e-standard-4t", "2x2").queued().obj(),
		}, nil},
		{"spot is not plan A", map[string]*containerpb.NodePool{
			"spot": makePool("ct6e-standard-4t", "4x4").spot().obj(),
			"dws":  makePool("ct6e-standard-4t", "4x4").queued().obj(),
		}, nil},
		{"several of a shape pair in name order; the one left over is in none", map[string]*containerpb.NodePool{
			"od-b":  makePool("ct5p-hightpu-4t", "2x2x2").obj(),
			"od-a":  makePool("ct5p-hightpu-4t", "2x2x2").obj(),
			"od-c":  makePool("ct5p-hightpu-4t", "2x2x2").obj(),
			"dws-2": makePool("ct5p-hightpu-4t", "2x2x2").queued().obj(),
			"dws-1": makePool("ct5p-hightpu-4t", "2x2x2").queued().obj(),
		}, []Pair{{"od-a", "dws-1"}, {"od-b", "dws-2"}}},
		{"another ComputeClass is no partner", map[string]*containerpb.NodePool{
			"od":  makePool("ct6e-standard-4t", "4x4").class("a").obj(),
			"dws": makePool("ct6e-standard-4t", "4x4").queued().class("b").obj(),
		}, nil},
		{"a pool GKE made is in no pair", map[string]*containerpb.NodePool{
			"a-nap": makePool("ct6e-standard-4t", "4x4").flexStart().autoprovisioned().obj(),
			"od":    makePool("ct6e-standard-4t", "4x4").obj(),
			"dws":   makePool("ct6e-standard-4t", "4x4").queued().obj(),
		}, []Pair{{"od", "dws"}}},
		{"another kind's pools are left out", map[string]*containerpb.NodePool{
			"gpu-od":  makePool("a3-highgpu-8g", "").obj(),
			"gpu-dws": makePool("a3-highgpu-8g", "").queued().obj(),
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Pairs(tc.pools, tpu, func(np *containerpb.NodePool) string { return np.GetConfig().GetLabels()["class"] })); diff != "" {
				t.Errorf("Pairs (-want +got):\n%s", diff)
			}
		})
	}
}

func (p pool) class(c string) pool {
	p.np.Config.Labels = map[string]string{"class": c}
	return p
}

func (p pool) autoprovisioned() pool {
	p.np.Autoscaling = &containerpb.NodePoolAutoscaling{Autoprovisioned: true}
	return p
}
