package gkeemu

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

var defaultScopes = []string{
	"https://www.googleapis.com/auth/devstorage.read_only",
	"https://www.googleapis.com/auth/logging.write",
	"https://www.googleapis.com/auth/monitoring",
	"https://www.googleapis.com/auth/service.management.readonly",
	"https://www.googleapis.com/auth/servicecontrol",
	"https://www.googleapis.com/auth/trace.append",
}

func poolName(p []string) string {
	return clusterName(p[1], p[3], p[5]) + "/nodePools/" + p[7]
}

func (s *Server) lookupPool(p []string) (*cluster, *containerpb.NodePool, *apiError) {
	c, e := s.lookupCluster(p)
	if e != nil {
		return nil, nil, e
	}
	np := findPool(c, p[7])
	if np == nil {
		return nil, nil, notFound(poolName(p))
	}
	return c, np, nil
}

// slice returns the TPU slice a pool's nodes form; a non-TPU pool is a slice of one node.
func slice(np *containerpb.NodePool) (catalog.Slice, *apiError) {
	mt := np.GetConfig().GetMachineType()
	topology := np.GetPlacementPolicy().GetTpuTopology()
	if !catalog.IsTPU(mt) {
		if topology != "" {
			return catalog.Slice{}, invalid("gkeemu: machine type %q is not a TPU machine type, so the pool cannot have a TPU topology; remove placementPolicy.tpuTopology.", mt)
		}
		return catalog.Slice{MachineType: mt, NodesPerSlice: 1}, nil
	}
	m, ok := catalog.Lookup(mt)
	if !ok {
		return catalog.Slice{}, invalid("gkeemu: %q is not a TPU machine type the emulator knows; use one from its catalog of GKE's TPU machine types.", mt)
	}
	if m.NeedsWorkloadPolicy {
		return workloadPolicySlice(np, m)
	}
	if topology == "" {
		return catalog.Slice{MachineType: mt, Accelerator: m.Accelerator, ChipsPerNode: m.ChipsPerVM, NodesPerSlice: 1, ChipsPerSlice: m.ChipsPerVM}, nil
	}
	sl, err := catalog.NewSlice(mt, topology)
	if err != nil {
		return catalog.Slice{}, invalid("gkeemu: TPU topology %q cannot be used with machine type %q: %v.", topology, mt, err)
	}
	return sl, nil
}

// workloadPolicySlice is the slice of a pool of a machine type placed by workload policy (TPU7x). GKE refuses a
// topology or policy on a single-host pool, and builds a multi-host one only with a workload policy. Messages are
// GKE's as Google's XPK and vLLM CI report them (GKE's pages do not quote them).
func workloadPolicySlice(np *containerpb.NodePool, m catalog.MachineType) (catalog.Slice, *apiError) {
	pp := np.GetPlacementPolicy()
	single := m.SingleHostTopology()
	if pp.GetTpuTopology() == "" && pp.GetPolicyName() == "" {
		sl, _ := catalog.NewSlice(m.Name, single) // the catalog's single-host shape always fits
		return sl, nil
	}
	if pp.GetTpuTopology() == single {
		return catalog.Slice{}, invalid("TPU topology can't be specified with single-host TPU slice pool; please remove the tpu_topology from the node pool creation request if the node pool is intented to run with single-host TPU slice nodes.") //nolint:misspell // GKE's own words, typo included
	}
	if pp.GetPolicyName() == "" {
		return catalog.Slice{}, invalid("Creation of a managed instance group with %s machine type with placement policy is not supported. Use workload policy instead.", m.Name)
	}
	if pp.GetTpuTopology() == "" {
		// GKE reads the shape from the workload policy, a Compute Engine resource this emulator does not serve.
		return catalog.Slice{}, invalid("gkeemu: node pool %s names workload policy %q without a TPU topology; the emulator does not serve Compute Engine resource policies, so pass --tpu-topology with the policy's accelerator topology.", np.GetName(), pp.GetPolicyName())
	}
	sl, err := catalog.NewSlice(m.Name, pp.GetTpuTopology())
	if err != nil {
		return catalog.Slice{}, invalid("gkeemu: TPU topology %q cannot be used with machine type %q: %v.", pp.GetTpuTopology(), m.Name, err)
	}
	return sl, nil
}

// validateGPUs applies the rules of GPU machine types: the accelerators a known type comes with, and which
// provisioning its family offers (Compute Engine "Accelerator-optimized machine family"). A GPU machine type the
// catalog does not know does not exist, as far as this emulator can tell.
func validateGPUs(np *containerpb.NodePool, zone string) *apiError {
	cfg := np.GetConfig()
	mt := cfg.GetMachineType()
	if !catalog.IsGPU(mt) {
		return nil
	}
	g, ok := catalog.LookupGPU(mt)
	if !ok {
		return machineTypeNotFound(mt, zone)
	}
	accs := cfg.GetAccelerators()
	if len(accs) > 1 || (len(accs) == 1 && (accs[0].GetAcceleratorType() != g.Accelerator || accs[0].GetAcceleratorCount() != int64(g.Count))) {
		return invalid("gkeemu: machine type %s comes with %d x %s, but the pool asks for %s; ask for exactly those accelerators, or for none.", mt, g.Count, g.Accelerator, describeAccelerators(accs))
	}
	if g.NoFlexStart && cfg.GetFlexStart() {
		return invalid("gkeemu: machine type %s is not offered as flex-start VMs; choose another machine type or turn flexStart off.", mt)
	}
	if g.NoOnDemand && !cfg.GetFlexStart() && !cfg.GetSpot() && !cfg.GetPreemptible() {
		return invalid("gkeemu: machine type %s is offered only as Spot or flex-start VMs, not on demand; set spot or flexStart.", mt)
	}
	return nil
}

func describeAccelerators(accs []*containerpb.AcceleratorConfig) string {
	var parts []string
	for _, a := range accs {
		parts = append(parts, fmt.Sprintf("%d x %s", a.GetAcceleratorCount(), a.GetAcceleratorType()))
	}
	return strings.Join(parts, ", ")
}

// validateNodePool applies GKE's creation rules for what the DWS fallback setup touches: names, TPU machine types and
// topologies, autoscaling bounds, and the flex-start and queued-provisioning constraints.
func (s *Server) validateNodePool(np *containerpb.NodePool, zone string) *apiError {
	if !nameRE.MatchString(np.Name) {
		return invalid("Invalid value for field \"node_pool.name\": %q. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?)' (only lowercase alphanumerics and '-' allowed, must start with a letter and end with an alphanumeric, and must be no longer than 40 characters).", np.Name)
	}
	if np.Config == nil {
		np.Config = &containerpb.NodeConfig{}
	}
	if np.Config.MachineType == "" {
		np.Config.MachineType = "e2-medium"
	}
	sl, e := slice(np)
	if e != nil {
		return e
	}
	if e := validateGPUs(np, zone); e != nil {
		return e
	}
	if np.InitialNodeCount < 0 {
		return invalid("gkeemu: initial node count %d must not be negative.", np.InitialNodeCount)
	}
	if e := validateAutoscaling(np, np.Autoscaling, sl); e != nil {
		return e
	}
	consumes := np.Config.GetReservationAffinity().GetConsumeReservationType()
	consumesReservation := consumes != containerpb.ReservationAffinity_UNSPECIFIED && consumes != containerpb.ReservationAffinity_NO_RESERVATION
	if consumes == containerpb.ReservationAffinity_SPECIFIC_RESERVATION &&
		(np.Config.ReservationAffinity.Key != reservationNameKey || len(np.Config.ReservationAffinity.Values) != 1) {
		return invalid("gkeemu: a SPECIFIC_RESERVATION affinity needs the key %q and exactly one value, the reservation's name.", reservationNameKey)
	}
	if e := validateMaxRunDuration(np.Name, np.Config.GetMaxRunDuration(), np.Config.GetFlexStart() || np.GetQueuedProvisioning().GetEnabled()); e != nil {
		return e
	}
	if e := validateBootDisk(np.Config.MachineType, np.Config.DiskType, np.Config.DiskSizeGb); e != nil {
		return e
	}
	if np.Config.GetFlexStart() {
		if consumesReservation {
			return invalid("gkeemu: a flex-start node pool cannot consume reservations; set its reservation affinity to NO_RESERVATION.")
		}
		if np.Config.Spot || np.Config.Preemptible {
			return invalid("gkeemu: a flex-start node pool cannot also use Spot or preemptible VMs; choose one of them.")
		}
	}
	if np.GetQueuedProvisioning().GetEnabled() {
		if !np.GetAutoscaling().GetEnabled() {
			return invalid("gkeemu: a node pool with queued provisioning needs autoscaling enabled.")
		}
		if np.InitialNodeCount != 0 {
			return invalid("gkeemu: a node pool with queued provisioning must start with 0 nodes, not %d; set the initial node count to 0.", np.InitialNodeCount)
		}
		if consumesReservation {
			// GKE's words (terraform-provider-google#18341).
			return invalid("Queued_provisioning requires reservation affinity to be set to none.")
		}
	}
	return nil
}

func validateAutoscaling(np *containerpb.NodePool, as *containerpb.NodePoolAutoscaling, sl catalog.Slice) *apiError {
	if !as.GetEnabled() {
		return nil
	}
	minN, maxN := as.MinNodeCount, as.MaxNodeCount
	if as.TotalMinNodeCount != 0 || as.TotalMaxNodeCount != 0 {
		minN, maxN = as.TotalMinNodeCount, as.TotalMaxNodeCount
	}
	if minN < 0 {
		return invalid("gkeemu: minimum node count %d must not be negative.", minN)
	}
	if maxN < 1 {
		// GKE's words (terraform-google-modules/terraform-google-kubernetes-engine#1554).
		return invalid("Node_pool_autoscaling.max_node_count and node_pool_autoscaling.total_max_node_count cannot be both set to zero.")
	}
	if minN > maxN {
		return invalid("gkeemu: minimum node count %d is greater than maximum node count %d.", minN, maxN)
	}
	if maxN > 1000 {
		return invalid("gkeemu: maximum node count %d is over the limit of 1000 nodes per zone.", maxN)
	}
	if e := validateSliceBounds(as, sl); e != nil {
		return e
	}
	if np.GetQueuedProvisioning().GetEnabled() && minN != 0 {
		return invalid("gkeemu: a node pool with queued provisioning must have a minimum node count of 0, not %d.", minN)
	}
	return nil
}

// fillNodePool sets what GKE sets on a new node pool.
func (s *Server) fillNodePool(c *cluster, np *containerpb.NodePool) {
	np.Status = containerpb.NodePool_PROVISIONING
	if np.Version == "" {
		np.Version = c.pb.CurrentNodeVersion
	}
	name := clusterName(c.project, c.pb.Location, c.pb.Name) + "/nodePools/" + np.Name
	np.SelfLink = fmt.Sprintf("%s/v1/%s", selfLinkHost, strings.Replace(name, "/locations/", "/zones/", 1))
	if len(np.Locations) == 0 {
		np.Locations = slices.Clone(c.pb.Locations)
	}
	setInstanceGroups(c, np)
	np.PodIpv4CidrSize = 24
	np.Etag = fmt.Sprintf("%x", s.opts.Now().UnixNano())
	cfg := np.Config
	fillBootDisk(cfg)
	if cfg.ImageType == "" {
		cfg.ImageType = "COS_CONTAINERD"
	}
	if cfg.ServiceAccount == "" {
		cfg.ServiceAccount = "default"
	}
	if len(cfg.OauthScopes) == 0 {
		cfg.OauthScopes = append([]string(nil), defaultScopes...)
	}
	if cfg.Metadata == nil {
		cfg.Metadata = map[string]string{"disable-legacy-endpoints": "true"}
	}
	if cfg.GcfsConfig == nil {
		if d := c.pb.GetNodePoolDefaults().GetNodeConfigDefaults().GetGcfsConfig(); d != nil {
			cfg.GcfsConfig, _ = proto.Clone(d).(*containerpb.GcfsConfig)
		}
	}
	cfg.ResourceLabels = withGKELabels(np, cfg.ResourceLabels)
	flexOrQueued := cfg.GetFlexStart() || np.GetQueuedProvisioning().GetEnabled()
	if cfg.ReservationAffinity == nil && flexOrQueued {
		cfg.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
	}
	// gcloud 393 to 455 said so at every pool creation: "a default location policy is applied. For Spot and PVM it
	// defaults to ANY, and for all other VM kinds a BALANCED policy is used."; flex-start and queued pools are ANY.
	if as := np.Autoscaling; as.GetEnabled() && as.LocationPolicy == containerpb.NodePoolAutoscaling_LOCATION_POLICY_UNSPECIFIED {
		as.LocationPolicy = containerpb.NodePoolAutoscaling_BALANCED
		if flexOrQueued || cfg.GetSpot() || cfg.GetPreemptible() {
			as.LocationPolicy = containerpb.NodePoolAutoscaling_ANY
		}
	}
	if np.Management == nil {
		np.Management = &containerpb.NodeManagement{AutoUpgrade: true, AutoRepair: true}
	}
	if np.UpgradeSettings == nil {
		np.UpgradeSettings = &containerpb.NodePool_UpgradeSettings{MaxSurge: 1}
	}
	if np.UpgradeSettings.Strategy == nil {
		surge := containerpb.NodePoolUpdateStrategy_SURGE
		np.UpgradeSettings.Strategy = &surge
	}
	if flexOrQueued {
		shortLived(np)
	}
}

// provisioningModel is the value of the resource label GKE adds to a new pool for how its VMs are provisioned. A pool
// of queued provisioning without flex-start is "on-demand" (GKE's answer recorded in Config Connector's
// containernodepool-queuedprovisioning traffic).
func provisioningModel(np *containerpb.NodePool) string {
	switch cfg := np.GetConfig(); {
	case cfg.GetFlexStart():
		return "flex-start"
	case cfg.GetSpot():
		return "spot"
	}
	return "on-demand"
}

// withGKELabels is labels with the resource labels GKE adds to a pool and keeps whatever an update asks for (GKE
// docs, creating-managing-labels, "Automatically applied labels"): the provisioning model on every pool, and on
// accelerator pools the values users' copies of live pools show: the GPU type or "tpu7x", and "multi-host" for a
// multi-host TPU slice. What GKE writes for older TPUs' accelerator type is not on record, so none is added.
func withGKELabels(np *containerpb.NodePool, labels map[string]string) map[string]string {
	labels = maps.Clone(labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[wellknown.ProvisioningModelLabel] = provisioningModel(np)
	if accs := np.GetConfig().GetAccelerators(); len(accs) > 0 {
		labels[wellknown.AcceleratorTypeLabel] = accs[0].GetAcceleratorType()
	}
	if m, ok := catalog.Lookup(np.GetConfig().GetMachineType()); ok && m.Accelerator == "tpu7x" {
		labels[wellknown.AcceleratorTypeLabel] = m.Accelerator
	}
	if sl, e := slice(np); e == nil && catalog.IsTPU(sl.MachineType) && sl.MultiHost() {
		labels[wellknown.TPUPoolTypeLabel] = "multi-host"
	}
	return labels
}

// shortLived gives a flex-start or queued pool the upgrade strategy GKE gives it whatever the request asked: a node
// of such a pool is never upgraded in place or surged, it is replaced when it next comes up (NodePoolUpdateStrategy
// SHORT_LIVED, "the dedicated upgrade strategy for QueuedProvisioning and flex start nodepools"; "For nodes that use
// Flex-start VMs, GKE uses short-lived upgrades", GKE docs, concepts/node-pool-upgrade-strategies).
func shortLived(np *containerpb.NodePool) {
	strategy := containerpb.NodePoolUpdateStrategy_SHORT_LIVED
	np.UpgradeSettings = &containerpb.NodePool_UpgradeSettings{Strategy: &strategy}
}

func (s *Server) createNodePool(r *request) (proto.Message, *apiError) {
	req := &containerpb.CreateNodePoolRequest{}
	if e := s.decode(r, req); e != nil {
		return nil, e
	}
	c, e := s.lookupCluster(r.parts)
	if e != nil {
		return nil, e
	}
	np := req.GetNodePool()
	if np == nil {
		return nil, invalid("gkeemu: the request has no \"nodePool\" field; send the node pool to create in it.")
	}
	np, _ = proto.Clone(np).(*containerpb.NodePool)
	name := clusterName(r.parts[1], r.parts[3], r.parts[5]) + "/nodePools/" + np.Name
	if findPool(c, np.Name) != nil {
		return nil, errorf(codes.AlreadyExists, "Already exists: %s.", name)
	}
	if e := s.checkPoolIdle(c, np.Name); e != nil {
		return nil, e
	}
	if c.pb.Status != containerpb.Cluster_RUNNING {
		return nil, errorf(codes.FailedPrecondition, "gkeemu: cluster %s is %s; node pools can be created only in a RUNNING cluster.", c.pb.Name, c.pb.Status)
	}
	if e := s.validateNodePool(np, poolZones(c, np)[0]); e != nil {
		return nil, e
	}
	if e := cmp.Or(checkLocations(c, np, np.Config.GetMachineType(), np.Locations), checkClusterZones(c, np)); e != nil {
		return nil, e
	}
	if e := s.checkReservation(c, np); e != nil {
		return nil, e
	}
	if e := s.checkBootDisks(c, np); e != nil {
		return nil, e
	}
	if e := checkAutoUpgrade(c, np.GetManagement()); e != nil {
		return nil, e
	}
	if e := cmp.Or(checkSurge(np.GetUpgradeSettings()), checkBlueGreen(np, np.GetUpgradeSettings())); e != nil {
		return nil, e
	}
	s.fillNodePool(c, np)
	c.pb.NodePools = append(c.pb.NodePools, np)
	stockout := s.takeStockout(c.pb.Name, np.Name)
	sl, _ := slice(np) // validateNodePool checked it
	gang := gangSizeError(sl, np.InitialNodeCount)
	start := s.opts.Now()
	return s.startOp(c, containerpb.Operation_CREATE_NODE_POOL, name, func() *apiError {
		if gang != nil {
			np.Status, np.StatusMessage = containerpb.NodePool_ERROR, gang.message
			return gang
		}
		if stockout {
			// GKE's shape, with the managed instance group's wait and the instance's error (akka/akka-core#32992).
			msg := fmt.Sprintf("Google Compute Engine: Not all instances running in IGM after %s. Expected %d, running 0, transitioning 0. "+
				"Current errors: [GCE_STOCKOUT]: Instance '%s' creation failed: The zone 'projects/%s/zones/%s' does not have enough "+
				"resources available to fulfill the request. '(resource type:compute)'.",
				s.opts.Now().Sub(start).Round(time.Millisecond), max(np.InitialNodeCount, 1), fmt.Sprintf("gke-%s-%s-0000", c.pb.Name, np.Name), c.project, poolZones(c, np)[0])
			np.Status = containerpb.NodePool_ERROR
			np.StatusMessage = msg
			np.Conditions = []*containerpb.StatusCondition{{
				Code: containerpb.StatusCondition_GCE_STOCKOUT, Message: msg, CanonicalCode: rpccode.Code_RESOURCE_EXHAUSTED,
			}}
			return errorf(codes.ResourceExhausted, "%s", msg)
		}
		np.Status = containerpb.NodePool_RUNNING
		c.nodeCounts[np.Name] = int(np.InitialNodeCount)
		return nil
	}), nil
}

func (s *Server) getNodePool(r *request) (proto.Message, *apiError) {
	_, np, e := s.lookupPool(r.parts)
	if e != nil {
		return nil, e
	}
	return np, nil
}

func (s *Server) listNodePools(r *request) (proto.Message, *apiError) {
	c, e := s.lookupCluster(r.parts)
	if e != nil {
		return nil, e
	}
	return &containerpb.ListNodePoolsResponse{NodePools: c.pb.NodePools}, nil
}

func (s *Server) deleteNodePool(r *request) (proto.Message, *apiError) {
	c, np, e := s.lookupPool(r.parts)
	if e != nil {
		return nil, e
	}
	if e := s.checkPoolIdle(c, np.Name); e != nil {
		return nil, e
	}
	np.Status = containerpb.NodePool_STOPPING
	return s.startOp(c, containerpb.Operation_DELETE_NODE_POOL, poolName(r.parts), func() *apiError {
		for i, p := range c.pb.NodePools {
			if p == np {
				c.pb.NodePools = append(c.pb.NodePools[:i:i], c.pb.NodePools[i+1:]...)
				break
			}
		}
		delete(c.nodeCounts, np.Name)
		return nil
	}), nil
}

// mutatePool runs an in-place node pool change as an operation on its cluster: checked now, applied when DONE.
func (s *Server) mutatePool(r *request, typ containerpb.Operation_Type, check func(c *cluster, np *containerpb.NodePool) (func(), *apiError)) (proto.Message, *apiError) {
	c, np, e := s.lookupPool(r.parts)
	if e != nil {
		return nil, e
	}
	return s.mutateFoundPool(c, np, typ, check)
}

func (s *Server) mutateFoundPool(c *cluster, np *containerpb.NodePool, typ containerpb.Operation_Type, check func(c *cluster, np *containerpb.NodePool) (func(), *apiError)) (proto.Message, *apiError) {
	if e := s.checkPoolIdle(c, np.Name); e != nil {
		return nil, e
	}
	if np.Status != containerpb.NodePool_RUNNING && np.Status != containerpb.NodePool_RUNNING_WITH_ERROR {
		return nil, errorf(codes.FailedPrecondition, "gkeemu: node pool %s is %s; it can be changed only when RUNNING or RUNNING_WITH_ERROR.", np.Name, np.Status)
	}
	apply, e := check(c, np)
	if e != nil {
		return nil, e
	}
	target := clusterName(c.project, c.pb.Location, c.pb.Name) + "/nodePools/" + np.Name
	return s.startOp(c, typ, target, func() *apiError {
		apply()
		np.Etag = fmt.Sprintf("%x", s.opts.Now().UnixNano())
		return nil
	}), nil
}

func (s *Server) setNodePoolAutoscaling(r *request) (proto.Message, *apiError) {
	req := &containerpb.SetNodePoolAutoscalingRequest{}
	if e := s.decode(r, req); e != nil {
		return nil, e
	}
	c, np, e := s.lookupPool(r.parts)
	if e != nil {
		return nil, e
	}
	return s.changeAutoscaling(c, np, req.Autoscaling, containerpb.Operation_UPDATE_CLUSTER)
}

func (s *Server) changeAutoscaling(c *cluster, np *containerpb.NodePool, as *containerpb.NodePoolAutoscaling, typ containerpb.Operation_Type) (proto.Message, *apiError) {
	if as == nil {
		return nil, invalid("gkeemu: the request has no \"autoscaling\" field; send the node pool's autoscaling settings in it.")
	}
	return s.mutateFoundPool(c, np, typ, func(c *cluster, np *containerpb.NodePool) (func(), *apiError) {
		sl, e := slice(np)
		if e != nil {
			return nil, e
		}
		as, _ := proto.Clone(as).(*containerpb.NodePoolAutoscaling)
		if np.GetQueuedProvisioning().GetEnabled() && !as.Enabled {
			return nil, invalid("gkeemu: node pool %s has queued provisioning, which needs autoscaling: autoscaling cannot be turned off.", np.Name)
		}
		if e := validateAutoscaling(np, as, sl); e != nil {
			return nil, e
		}
		if as.Enabled && as.LocationPolicy == containerpb.NodePoolAutoscaling_LOCATION_POLICY_UNSPECIFIED {
			as.LocationPolicy = np.GetAutoscaling().GetLocationPolicy()
		}
		return func() { np.Autoscaling = as }, nil
	})
}

func (s *Server) setNodePoolSize(r *request) (proto.Message, *apiError) {
	req := &containerpb.SetNodePoolSizeRequest{}
	if e := s.decode(r, req); e != nil {
		return nil, e
	}
	return s.mutatePool(r, containerpb.Operation_SET_NODE_POOL_SIZE, func(c *cluster, np *containerpb.NodePool) (func(), *apiError) {
		if np.GetQueuedProvisioning().GetEnabled() {
			return nil, invalid("gkeemu: node pool %s has queued provisioning and cannot be resized by hand: its nodes come only through ProvisioningRequests.", np.Name)
		}
		sl, e := slice(np)
		if e != nil {
			return nil, e
		}
		if req.NodeCount < 0 {
			return nil, invalid("gkeemu: node count %d must not be negative.", req.NodeCount)
		}
		if e := gangSizeError(sl, req.NodeCount); e != nil {
			return nil, e
		}
		if np.GetConfig().GetReservationAffinity().GetConsumeReservationType() == containerpb.ReservationAffinity_SPECIFIC_RESERVATION {
			if e := s.checkReservationRoomLocked(np, s.consumedReservationLocked(c, np), int(req.NodeCount)-c.nodeCounts[np.Name]); e != nil {
				return nil, e
			}
		}
		return func() { c.nodeCounts[np.Name] = int(req.NodeCount) }, nil
	})
}

func (s *Server) setNodePoolManagement(r *request) (proto.Message, *apiError) {
	req := &containerpb.SetNodePoolManagementRequest{}
	if e := s.decode(r, req); e != nil {
		return nil, e
	}
	if req.Management == nil {
		return nil, invalid("gkeemu: the request has no \"management\" field; send the node pool's management settings in it.")
	}
	return s.mutatePool(r, containerpb.Operation_SET_NODE_POOL_MANAGEMENT, func(c *cluster, np *containerpb.NodePool) (func(), *apiError) {
		if e := checkAutoUpgrade(c, req.Management); e != nil {
			return nil, e
		}
		return func() { np.Management = req.Management }, nil
	})
}

// checkAutoUpgrade refuses auto-upgrade off on a cluster enrolled in a release channel, in GKE's words
// ("Auto_upgrade cannot be false when release_channel REGULAR is set.", nkoson/gke-tutorial#8,
// Percona-Lab/jenkins-pipelines#471).
func checkAutoUpgrade(c *cluster, m *containerpb.NodeManagement) *apiError {
	ch := c.pb.GetReleaseChannel().GetChannel()
	if m == nil || m.AutoUpgrade || ch == containerpb.ReleaseChannel_UNSPECIFIED {
		return nil
	}
	return invalid("Auto_upgrade cannot be false when release_channel %s is set.", ch)
}

// checkSurge refuses a surge upgrade that may neither add nor take away a node (GKE docs, node pool upgrade
// strategies: at least one of maxSurge and maxUnavailable above 0). GKE's text is not on record: plain words, marked
// "gkeemu:".
func checkSurge(u *containerpb.NodePool_UpgradeSettings) *apiError {
	if u == nil {
		return nil
	}
	// Unset and unspecified are surge, GKE's default strategy.
	surge := u.GetStrategy() == containerpb.NodePoolUpdateStrategy_SURGE || u.GetStrategy() == containerpb.NodePoolUpdateStrategy_NODE_POOL_UPDATE_STRATEGY_UNSPECIFIED
	if !surge || u.GetMaxSurge() > 0 || u.GetMaxUnavailable() > 0 {
		return nil
	}
	return invalid("gkeemu: a surge upgrade needs maxSurge or maxUnavailable above 0; both are 0.")
}

// checkBlueGreen refuses blue-green upgrades of a multi-host TPU slice, which GKE places compactly (Google's Cluster
// Toolkit, gke-node-pool module: "Compact placement is not supported with blue-green upgrades"), and a batch share
// outside (0, 1] (API reference, BlueGreenSettings.StandardRolloutPolicy.batch_percentage). GKE's texts are not on
// record: plain words, marked "gkeemu:".
func checkBlueGreen(np *containerpb.NodePool, u *containerpb.NodePool_UpgradeSettings) *apiError {
	if u.GetStrategy() != containerpb.NodePoolUpdateStrategy_BLUE_GREEN {
		return nil
	}
	p := u.GetBlueGreenSettings().GetStandardRolloutPolicy()
	if b, ok := p.GetUpdateBatchSize().(*containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchPercentage); ok && (b.BatchPercentage <= 0 || b.BatchPercentage > 1) {
		return invalid("gkeemu: blue-green batchPercentage %v is out of range: it must be greater than 0 and at most 1.", b.BatchPercentage)
	}
	// A slice placed by a workload policy (TPU7x) is not compactly placed; what GKE says of it is not on record.
	if m, _ := catalog.Lookup(np.GetConfig().GetMachineType()); m.NeedsWorkloadPolicy {
		return nil
	}
	if sl, e := slice(np); e == nil && sl.MultiHost() {
		return invalid("gkeemu: node pool %s is a compactly placed multi-host TPU slice (%s), which cannot take blue-green upgrades; use surge upgrades.",
			np.GetName(), sl.Topology)
	}
	return nil
}

// updateNodePool applies UpdateNodePoolRequest's in-place fields and refuses the ones GKE fixes at creation for the
// pools this setup makes (TPU machine type, flex-start, queued provisioning).
func (s *Server) updateNodePool(r *request) (proto.Message, *apiError) {
	req := &containerpb.UpdateNodePoolRequest{}
	if e := s.decode(r, req); e != nil {
		return nil, e
	}
	return s.mutatePool(r, containerpb.Operation_UPDATE_CLUSTER, func(c *cluster, np *containerpb.NodePool) (func(), *apiError) {
		cfg := np.Config
		if req.MachineType != "" && req.MachineType != cfg.MachineType && (catalog.IsTPU(req.MachineType) || catalog.IsTPU(cfg.MachineType)) {
			return nil, invalid("gkeemu: node pool %s cannot change its machine type to or from a TPU machine type; create a new node pool instead.", np.Name)
		}
		if req.QueuedProvisioning != nil && req.QueuedProvisioning.Enabled != np.GetQueuedProvisioning().GetEnabled() {
			return nil, invalid("gkeemu: queued provisioning of node pool %s is set at creation and cannot be changed; create a new node pool instead.", np.Name)
		}
		if req.FlexStart != nil && *req.FlexStart != cfg.GetFlexStart() {
			return nil, invalid("gkeemu: flex-start of node pool %s is set at creation and cannot be changed; create a new node pool instead.", np.Name)
		}
		var changes []func()
		set := func(ok bool, f func()) {
			if ok {
				changes = append(changes, f)
			}
		}
		set(req.Labels != nil, func() { cfg.Labels = req.Labels.GetLabels() })
		set(req.ResourceLabels != nil, func() {
			// GKE's own labels stay whatever labels an update asks for: GKE reconciles its reserved labels.
			cfg.ResourceLabels = withGKELabels(np, req.ResourceLabels.GetLabels())
		})
		set(req.Taints != nil, func() { cfg.Taints = req.Taints.GetTaints() })
		set(req.Tags != nil, func() { cfg.Tags = req.Tags.GetTags() })
		set(req.GcfsConfig != nil, func() { cfg.GcfsConfig = req.GcfsConfig })
		if req.MaxRunDuration != nil {
			if e := validateMaxRunDuration(np.Name, req.MaxRunDuration, cfg.GetFlexStart() || np.GetQueuedProvisioning().GetEnabled()); e != nil {
				return nil, e
			}
			set(true, func() { cfg.MaxRunDuration = req.MaxRunDuration })
		}
		if e := cmp.Or(checkSurge(req.UpgradeSettings), checkBlueGreen(np, req.UpgradeSettings)); e != nil {
			return nil, e
		}
		set(req.UpgradeSettings != nil, func() {
			np.UpgradeSettings = req.UpgradeSettings
			if cfg.GetFlexStart() || np.GetQueuedProvisioning().GetEnabled() {
				shortLived(np)
			}
		})
		if len(req.Locations) > 0 {
			if e := checkLocations(c, np, cmp.Or(req.MachineType, cfg.MachineType), req.Locations); e != nil {
				return nil, e
			}
			moved, _ := proto.Clone(np).(*containerpb.NodePool)
			moved.Locations = req.Locations
			if e := s.checkReservation(c, moved); e != nil {
				return nil, e
			}
			set(true, func() { np.Locations = req.Locations; setInstanceGroups(c, np) })
		}
		set(req.MachineType != "", func() { cfg.MachineType = req.MachineType })
		machineType := cmp.Or(req.MachineType, cfg.MachineType)
		// A new machine type must take the disk the pool keeps, as well as a new one; an update of anything else
		// leaves the disk alone and does not look at it.
		if req.MachineType != "" || req.DiskType != "" || req.DiskSizeGb != 0 {
			if e := validateBootDisk(machineType, cmp.Or(req.DiskType, cfg.DiskType), int32(req.DiskSizeGb)); e != nil { //nolint:gosec // GKE's sizes fit
				return nil, e
			}
		}
		set(req.DiskSizeGb != 0, func() { cfg.DiskSizeGb = int32(req.DiskSizeGb); syncBootDisk(cfg) }) //nolint:gosec // GKE's sizes fit
		set(req.DiskType != "", func() { cfg.DiskType = req.DiskType; syncBootDisk(cfg) })
		if bd := req.BootDisk; bd != nil {
			// The boot disk by its newer field: the same rules as diskType and diskSizeGb, kept in both places.
			if e := validateBootDisk(machineType, cmp.Or(bd.DiskType, cfg.DiskType), int32(bd.SizeGb)); e != nil { //nolint:gosec // GKE's sizes fit
				return nil, e
			}
			set(true, func() {
				cfg.DiskType = cmp.Or(bd.DiskType, cfg.DiskType)
				cfg.DiskSizeGb = cmp.Or(int32(bd.SizeGb), cfg.DiskSizeGb) //nolint:gosec // GKE's sizes fit
				syncBootDisk(cfg)
				cfg.BootDisk.ProvisionedIops = cmp.Or(bd.ProvisionedIops, cfg.BootDisk.ProvisionedIops)
				cfg.BootDisk.ProvisionedThroughput = cmp.Or(bd.ProvisionedThroughput, cfg.BootDisk.ProvisionedThroughput)
			})
		}
		set(req.Gvnic != nil, func() { cfg.Gvnic = req.Gvnic })
		if req.NodeVersion != "" && req.NodeVersion != "-" {
			v, e := resolveVersion(req.NodeVersion)
			if e != nil {
				return nil, e
			}
			set(v != np.Version, func() { np.Version = v })
		}
		set(req.ImageType != "" && !strings.EqualFold(req.ImageType, cfg.ImageType), func() { cfg.ImageType = req.ImageType })
		rest, e := inPlace(req, np)
		if e != nil {
			return nil, e
		}
		changes = append(changes, rest...)
		if len(changes) == 0 {
			return func() {}, nil
		}
		return func() {
			for _, f := range changes {
				f()
			}
		}, nil
	})
}

// setInstanceGroups gives a pool one instance group per zone, as GKE does.
func setInstanceGroups(c *cluster, np *containerpb.NodePool) {
	np.InstanceGroupUrls = nil
	for _, zone := range np.Locations {
		np.InstanceGroupUrls = append(np.InstanceGroupUrls, instanceGroupURL(c.project, zone, groupBase(clusterName(c.project, c.pb.Location, c.pb.Name), c.pb.Name, np.Name)))
	}
}
