package gkeemu

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

const (
	// annotationCluster is the emulator's own bookkeeping: which emulated cluster a Node belongs to, since every
	// emulated cluster shares the one local control plane. GKE has no such annotation.
	annotationCluster = "gkeemu.dwsfallback.local/cluster"
)

// poolTarget is a snapshot of one emulated node pool, taken under the server's lock, for the autoscaler to act on.
type poolTarget struct {
	clusterKey, clusterName, project, zone string
	pool, topology                         string
	cfg                                    *containerpb.NodeConfig
	count                                  int
	autoscaled, queued                     bool
	minNodes, maxNodes                     int
	// sliceNodes is how many nodes GKE adds or removes at once: a multi-host TPU slice is one atomic unit.
	sliceNodes int
	running    bool
	// gpuTaint: GKE taints GPU nodes only in a cluster that also has a node pool without GPUs.
	gpuTaint bool
	// reservation is the reservation the pool consumes (zone/name), "" for none; reservationRoom is how many more
	// nodes it can give; reserved says the pool may only grow on a reservation (none left: no room).
	reservation     string
	reservationRoom int
	reserved        bool
}

func (t poolTarget) key() string { return t.clusterKey + "/nodePools/" + t.pool }

// poolTargets snapshots every node pool of every emulated cluster.
func (s *Server) poolTargets() []poolTarget {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []poolTarget
	for key, c := range s.clusters {
		gpuTaint := false
		for _, np := range c.pb.NodePools {
			if !catalog.IsGPU(np.GetConfig().GetMachineType()) {
				gpuTaint = true
			}
		}
		for _, np := range c.pb.NodePools {
			t := poolTarget{
				clusterKey: key, clusterName: c.pb.Name, project: c.project, zone: poolZones(c, np)[0], pool: np.Name,
				// A copy: an update of the pool's labels or taints may replace them while the autoscaler reads.
				cfg: cloneConfig(np.Config), topology: np.GetPlacementPolicy().GetTpuTopology(), count: c.nodeCounts[np.Name], sliceNodes: 1,
				autoscaled: np.GetAutoscaling().GetEnabled(), queued: np.GetQueuedProvisioning().GetEnabled(),
				minNodes: int(np.GetAutoscaling().GetMinNodeCount()), maxNodes: int(np.GetAutoscaling().GetMaxNodeCount()),
				running:  c.pb.Status == containerpb.Cluster_RUNNING || c.pb.Status == containerpb.Cluster_RECONCILING,
				gpuTaint: gpuTaint,
			}
			t.reservationRoom, t.reserved = s.reservationRoomLocked(c, np)
			if r := s.consumedReservationLocked(c, np); r != nil {
				t.reservation = r.key()
			}
			if np.GetAutoscaling().GetTotalMaxNodeCount() > 0 {
				t.minNodes, t.maxNodes = int(np.Autoscaling.TotalMinNodeCount), int(np.Autoscaling.TotalMaxNodeCount)
			} else if zones := len(poolZones(c, np)); zones > 1 {
				// minNodeCount and maxNodeCount are per zone (API reference, NodePoolAutoscaling).
				t.minNodes, t.maxNodes = t.minNodes*zones, t.maxNodes*zones
			}
			if sl, e := slice(np); e == nil {
				if sl.MultiHost() {
					t.sliceNodes = sl.NodesPerSlice
				}
				if t.topology == "" {
					t.topology = sl.Topology // a single-host TPU7x pool: GKE labels its nodes with their shape
				}
			}
			out = append(out, t)
		}
	}
	return out
}

func cloneConfig(c *containerpb.NodeConfig) *containerpb.NodeConfig {
	out, _ := proto.Clone(c).(*containerpb.NodeConfig)
	return out
}

// setNodeCount records a pool's new size, as the autoscaler or DWS leaves it, and the cluster's currentNodeCount.
func (s *Server) setNodeCount(clusterKey, pool string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clusters[clusterKey]
	if !ok || findPool(c, pool) == nil {
		return
	}
	c.nodeCounts[pool] = n
	total := 0
	for _, np := range c.pb.NodePools {
		total += c.nodeCounts[np.Name]
	}
	c.pb.CurrentNodeCount = int32(total) //nolint:gosec // node counts are small
}

// groupBase is the name GKE gives a pool's managed instance group, and the prefix of its nodes' names:
// gke-CLUSTER-POOL-HASH, with the cluster and pool names shortened so that a node name stays a valid DNS label.
func groupBase(clusterKey, cluster, pool string) string {
	sum := sha256.Sum256([]byte(clusterKey + "/" + pool))
	trim := func(s string, n int) string {
		if len(s) > n {
			s = s[:n]
		}
		return strings.TrimRight(s, "-")
	}
	return fmt.Sprintf("gke-%s-%s-%s", trim(cluster, 20), trim(pool, 20), hex.EncodeToString(sum[:4]))
}

// instanceGroupURL is the managed instance group of a pool, as NodePool.instanceGroupUrls lists it.
func instanceGroupURL(project, zone, base string) string {
	return fmt.Sprintf("https://www.googleapis.com/compute/v1/projects/%s/zones/%s/instanceGroupManagers/%s-grp", project, zone, base)
}

func nodeName(base string) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 4)
	for i := range b {
		b[i] = chars[rand.IntN(len(chars))] //nolint:gosec // a name suffix, not a secret
	}
	return base + "-" + string(b)
}

// newNode is the Node GKE would register for a VM of the pool: its labels, taints, capacity and allocatable. The
// labels and taints the provider also reads are named in package wellknown, with their sources; the others are
// written here as GKE sets them, and Kubernetes' well-known labels name the topology and instance-type keys.
func newNode(t poolTarget, name, ip string) *corev1.Node {
	mt := t.cfg.GetMachineType()
	region := t.zone
	if i := strings.LastIndex(t.zone, "-"); i > 0 {
		region = t.zone[:i]
	}
	labels := map[string]string{
		"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"node.kubernetes.io/instance-type": mt, "topology.kubernetes.io/zone": t.zone, "topology.kubernetes.io/region": region,
		"topology.gke.io/zone": t.zone, "cloud.google.com/machine-family": strings.SplitN(mt, "-", 2)[0],
		wellknown.NodePoolLabel: t.pool, "cloud.google.com/gke-os-distribution": "cos", "cloud.google.com/gke-container-runtime": "containerd",
		"cloud.google.com/gke-boot-disk": t.cfg.GetDiskType(),
	}
	for k, v := range t.cfg.GetLabels() {
		labels[k] = v
	}
	var taints []corev1.Taint
	for _, tt := range t.cfg.GetTaints() {
		taints = append(taints, corev1.Taint{Key: tt.Key, Value: tt.Value, Effect: taintEffect(tt.Effect)})
	}
	shape, ok := catalog.MachineShape(mt)
	if !ok {
		shape = catalog.Shape{VCPUs: 4, MemoryGB: 16} // a machine type the catalog cannot size: an n2-standard-4's
	}
	if mtype, ok := catalog.Lookup(mt); ok {
		labels[wellknown.TPUAcceleratorLabel] = mtype.Accelerator
		if t.topology != "" {
			labels[wellknown.TPUTopologyLabel] = t.topology
		}
		taints = append(taints, corev1.Taint{Key: wellknown.TPUResource, Value: "present", Effect: corev1.TaintEffectNoSchedule})
	}
	if g, ok := catalog.LookupGPU(mt); ok {
		labels[wellknown.GPUAcceleratorLabel] = g.Accelerator
		labels[wellknown.GPUCountLabel] = fmt.Sprint(g.Count)
		labels[wellknown.GPULabel] = "true"
		if accs := t.cfg.GetAccelerators(); len(accs) > 0 {
			if v := gpuDriverLabel(accs[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion()); v != "" {
				labels[wellknown.GPUDriverLabel] = v
			}
		}
		if t.gpuTaint {
			taints = append(taints, corev1.Taint{Key: wellknown.GPUResource, Value: "present", Effect: corev1.TaintEffectNoSchedule})
		}
	}
	if t.cfg.GetFlexStart() {
		labels[wellknown.FlexStartLabel] = "true"
	}
	if t.queued {
		labels[wellknown.QueuedLabel] = "true"
		taints = append(taints, corev1.Taint{Key: wellknown.QueuedTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule})
	}
	capacity, allocatable := nodeResources(shape, int64(t.cfg.GetDiskSizeGb()))
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{annotationCluster: t.clusterKey}},
		Spec: corev1.NodeSpec{
			Taints:     taints,
			ProviderID: fmt.Sprintf("gce://%s/%s/%s", t.project, t.zone, name),
		},
		Status: corev1.NodeStatus{
			Capacity: capacity, Allocatable: allocatable,
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: name}},
		},
	}
}

// gpuDriverLabel is the gke-gpu-driver-version value of a driver setting (the gcloud gpu-driver-version names).
func gpuDriverLabel(v containerpb.GPUDriverInstallationConfig_GPUDriverVersion) string {
	switch v {
	case containerpb.GPUDriverInstallationConfig_DEFAULT:
		return "default"
	case containerpb.GPUDriverInstallationConfig_LATEST:
		return "latest"
	case containerpb.GPUDriverInstallationConfig_INSTALLATION_DISABLED:
		return "disabled"
	default:
		return ""
	}
}

func taintEffect(e containerpb.NodeTaint_Effect) corev1.TaintEffect {
	switch e {
	case containerpb.NodeTaint_PREFER_NO_SCHEDULE:
		return corev1.TaintEffectPreferNoSchedule
	case containerpb.NodeTaint_NO_EXECUTE:
		return corev1.TaintEffectNoExecute
	default:
		return corev1.TaintEffectNoSchedule
	}
}

// nodeResources is a node's capacity and allocatable. GKE reserves CPU and memory for the system (GKE "Standard
// cluster architecture", node allocatable): 6% of the first core, 1% of the next, 0.5% of the next 2 and 0.25% above
// 4; 25% of the first 4 GiB of memory, 20% of the next 4, 10% of the next 8, 6% of the next 112 and 2% above 128, plus
// 100 MiB for eviction.
func nodeResources(sh catalog.Shape, diskGB int64) (capacity, allocatable corev1.ResourceList) {
	cpuMilli := int64(sh.VCPUs) * 1000
	memMi := int64(sh.MemoryGB) * 1024
	reservedCPU := tiered(cpuMilli, []tier{{1000, 0.06}, {1000, 0.01}, {2000, 0.005}, {-1, 0.0025}})
	reservedMem := tiered(memMi, []tier{{4096, 0.25}, {4096, 0.20}, {8192, 0.10}, {114688, 0.06}, {-1, 0.02}}) + 100
	if diskGB == 0 {
		diskGB = 100
	}
	capacity = corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(cpuMilli, resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(memMi<<20, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(110, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(diskGB<<30, resource.BinarySI),
	}
	allocatable = corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(cpuMilli-reservedCPU, resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity((memMi-reservedMem)<<20, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(110, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(diskGB<<30*9/10, resource.BinarySI),
	}
	if sh.TPUChips > 0 {
		chips := *resource.NewQuantity(int64(sh.TPUChips), resource.DecimalSI)
		capacity[wellknown.TPUResource], allocatable[wellknown.TPUResource] = chips, chips
	}
	if sh.GPUs > 0 {
		gpus := *resource.NewQuantity(int64(sh.GPUs), resource.DecimalSI)
		capacity[wellknown.GPUResource], allocatable[wellknown.GPUResource] = gpus, gpus
	}
	return capacity, allocatable
}

type tier struct {
	size int64 // -1: the rest
	rate float64
}

func tiered(total int64, tiers []tier) int64 {
	var out float64
	left := total
	for _, t := range tiers {
		n := left
		if t.size >= 0 && n > t.size {
			n = t.size
		}
		out += float64(n) * t.rate
		left -= n
		if left <= 0 {
			break
		}
	}
	return int64(out)
}
