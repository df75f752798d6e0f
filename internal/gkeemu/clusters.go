package gkeemu

import (
	"fmt"
	"log"
	"regexp"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// validVersions are the GKE versions the emulator offers, newest first; "1.35" resolves to the newest 1.35 patch.
// They are the defaults GKE's release notes name (docs.cloud.google.com/kubernetes-engine/docs/release-notes,
// "Current versions", and the Rapid and Regular channels' notes of September 2026). GKE also offers 1.37 in the Rapid
// channel, but no note at hand names a 1.37 patch, so the emulator refuses it as GKE refuses a version it lacks.
var validVersions = []string{
	"1.36.4-gke.1391000", // Rapid's default for cluster creation since 2026-09-23
	"1.36.4-gke.1082000", // Rapid's default in "Current versions"
	"1.35.8-gke.1036000", // Regular's default since 2026-09-17: GKE's default (new clusters join Regular)
	"1.35.7-gke.1222000", // Regular's and no channel's default in "Current versions"
	"1.35.6-gke.1250000", // Stable's default in "Current versions"
	"1.34.8-gke.1000000", // Stable's default before it
}

const defaultVersion = "1.35.8-gke.1036000"

// channelVersions is each release channel's default and what it offers, per "Current versions": Rapid 1.34 to
// 1.37 (1.37 left out, above), Regular 1.34 to 1.36, Stable 1.34 to 1.35.
var channelVersions = map[containerpb.ReleaseChannel_Channel]struct {
	def   string
	valid []string
}{
	containerpb.ReleaseChannel_RAPID:   {validVersions[0], validVersions},
	containerpb.ReleaseChannel_REGULAR: {defaultVersion, validVersions},
	containerpb.ReleaseChannel_STABLE:  {validVersions[4], validVersions[4:]},
}

var nameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)

// resolveVersionIn is resolveVersion for a cluster in a release channel: among the channel's versions, its default
// when none is asked for.
func resolveVersionIn(v string, ch containerpb.ReleaseChannel_Channel) (string, *apiError) {
	if c, ok := channelVersions[ch]; ok {
		return resolveAmong(v, c.def, c.valid)
	}
	return resolveVersion(v)
}

func resolveVersion(v string) (string, *apiError) {
	return resolveAmong(v, defaultVersion, validVersions)
}

func resolveAmong(v, def string, valid []string) (string, *apiError) {
	switch v {
	case "", "-":
		return def, nil
	case "latest":
		return valid[0], nil
	}
	for _, known := range valid {
		if known == v || strings.HasPrefix(known, v+".") || strings.HasPrefix(known, v+"-") {
			return known, nil
		}
	}
	// GKE's words for a version it does not offer (googlecodelabs/feedback#793, GoogleCloudPlatform/gke-networking-demos#37)
	// and for one that is no version at all (kelseyhightower/kubernetes-cluster-federation#40).
	if versionRE.MatchString(v) {
		return "", invalid("Master version %q is unsupported.", v)
	}
	return "", invalid("Version is invalid.")
}

var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?(-gke\.[0-9]+)?$`)

func (s *Server) getServerConfig(r *request) (proto.Message, *apiError) {
	return &containerpb.ServerConfig{
		DefaultClusterVersion: defaultVersion,
		ValidMasterVersions:   validVersions,
		ValidNodeVersions:     validVersions,
		DefaultImageType:      "COS_CONTAINERD",
		ValidImageTypes:       []string{"COS_CONTAINERD", "UBUNTU_CONTAINERD"},
		Channels: []*containerpb.ServerConfig_ReleaseChannelConfig{
			channelConfig(containerpb.ReleaseChannel_RAPID),
			channelConfig(containerpb.ReleaseChannel_REGULAR),
			channelConfig(containerpb.ReleaseChannel_STABLE),
		},
	}, nil
}

func channelConfig(ch containerpb.ReleaseChannel_Channel) *containerpb.ServerConfig_ReleaseChannelConfig {
	c := channelVersions[ch]
	return &containerpb.ServerConfig_ReleaseChannelConfig{Channel: ch, DefaultVersion: c.def, ValidVersions: c.valid}
}

// getService answers Service Usage's services.get: every API is enabled in the emulator.
func (s *Server) getService(r *request) (proto.Message, *apiError) {
	st, _ := structpb.NewStruct(map[string]any{"name": strings.Join(r.parts, "/"), "state": "ENABLED"})
	return st, nil
}

func clusterName(project, location, name string) string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", project, location, name)
}

// lookupCluster finds the cluster a path names (projects/P/locations/L/clusters/C/...).
func (s *Server) lookupCluster(p []string) (*cluster, *apiError) {
	name := clusterName(p[1], p[3], p[5])
	c, ok := s.clusters[name]
	if !ok {
		return nil, notFound(name)
	}
	return c, nil
}

func (s *Server) decode(r *request, m proto.Message) *apiError {
	if err := (protojson.UnmarshalOptions{}).Unmarshal(r.body, m); err != nil {
		return invalid("Invalid JSON payload received. %v", err)
	}
	return nil
}

func (s *Server) createCluster(r *request) (proto.Message, *apiError) {
	req := &containerpb.CreateClusterRequest{}
	if e := s.decode(r, req); e != nil {
		return nil, e
	}
	project, location := r.parts[1], r.parts[3]
	in := req.GetCluster()
	if in == nil {
		return nil, invalid("gkeemu: the request has no \"cluster\" field; send the cluster to create in it.")
	}
	if !nameRE.MatchString(in.Name) {
		return nil, invalid("Invalid value for field \"cluster.name\": %q. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?)' (only alphanumerics and '-' allowed, must start with a letter and end with an alphanumeric, and must be no longer than 40 characters).", in.Name)
	}
	name := clusterName(project, location, in.Name)
	if _, exists := s.clusters[name]; exists {
		return nil, errorf(codes.AlreadyExists, "Already exists: %s.", name)
	}
	version, e := resolveVersionIn(in.InitialClusterVersion, in.GetReleaseChannel().GetChannel())
	if e != nil {
		return nil, e
	}
	pb, _ := proto.Clone(in).(*containerpb.Cluster) // a clone has its original's type
	if len(pb.NodePools) == 0 && !pb.GetAutopilot().GetEnabled() {
		count := pb.InitialNodeCount
		if count == 0 {
			count = 3
		}
		pb.NodePools = []*containerpb.NodePool{{Name: "default-pool", InitialNodeCount: count, Config: pb.NodeConfig}}
	}
	pb.InitialNodeCount = 0
	now := s.opts.Now().UTC()
	pb.Location, pb.Zone = location, location
	pb.Locations = []string{location}
	pb.SelfLink = fmt.Sprintf("%s/v1/%s", selfLinkHost, strings.Replace(name, "/locations/", "/zones/", 1))
	pb.Id = fmt.Sprintf("%032x", now.UnixNano())
	pb.CreateTime = now.Format(time.RFC3339)
	pb.CurrentMasterVersion, pb.CurrentNodeVersion = version, version
	pb.Status = containerpb.Cluster_PROVISIONING
	if pb.Network == "" {
		pb.Network, pb.Subnetwork = "default", "default"
	}
	if pb.ReleaseChannel == nil {
		pb.ReleaseChannel = &containerpb.ReleaseChannel{Channel: containerpb.ReleaseChannel_REGULAR}
	}
	if pb.LoggingService == "" {
		pb.LoggingService, pb.MonitoringService = "logging.googleapis.com/kubernetes", "monitoring.googleapis.com/kubernetes"
	}
	if pb.ClusterIpv4Cidr == "" {
		pb.ClusterIpv4Cidr, pb.ServicesIpv4Cidr = "10.68.0.0/14", "34.118.224.0/20"
	}
	c := &cluster{pb: pb, project: project, nodeCounts: map[string]int{}}
	for _, np := range pb.NodePools {
		if e := s.validateNodePool(np, poolZones(c, np)[0]); e != nil {
			return nil, e
		}
		s.fillNodePool(c, np)
	}
	pb.NodeConfig, _ = proto.Clone(pb.NodePools[0].GetConfig()).(*containerpb.NodeConfig)
	// Last, once nothing can refuse the cluster: a refused create must not hold a control plane.
	if err := s.openPlane(name, pb); err != nil {
		// GKE's 500 says no more (madhuakula/kubernetes-goat#13); the cause is the local stack's, in its log.
		log.Printf("gkeemu: cluster %s: starting its control plane: %v", name, err)
		return nil, errorf(codes.Internal, "Internal error encountered.")
	}
	s.clusters[name] = c
	return s.startOp(c, containerpb.Operation_CREATE_CLUSTER, name, func() *apiError {
		c.pb.Status = containerpb.Cluster_RUNNING
		total := int32(0)
		for _, np := range c.pb.NodePools {
			np.Status = containerpb.NodePool_RUNNING
			c.nodeCounts[np.Name] = int(np.InitialNodeCount)
			total += np.InitialNodeCount
		}
		c.pb.CurrentNodeCount = total
		return nil
	}), nil
}

func (s *Server) getCluster(r *request) (proto.Message, *apiError) {
	c, e := s.lookupCluster(r.parts)
	if e != nil {
		return nil, e
	}
	return c.pb, nil
}

func (s *Server) listClusters(r *request) (proto.Message, *apiError) {
	project, location := r.parts[1], r.parts[3]
	names := make([]string, 0, len(s.clusters))
	for name, c := range s.clusters {
		if c.project == project && (location == "-" || c.pb.Location == location) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := &containerpb.ListClustersResponse{}
	for _, n := range names {
		out.Clusters = append(out.Clusters, s.clusters[n].pb)
	}
	return out, nil
}

func (s *Server) deleteCluster(r *request) (proto.Message, *apiError) {
	c, e := s.lookupCluster(r.parts)
	if e != nil {
		return nil, e
	}
	if e := s.checkIdle(c); e != nil {
		return nil, e
	}
	name := clusterName(r.parts[1], r.parts[3], r.parts[5])
	c.pb.Status = containerpb.Cluster_STOPPING
	var prepare func() *apiError
	if e, ok := s.planes.(Emptier); ok {
		// GKE's deletion is done when everything in the cluster is gone: a cluster made again under its name starts
		// empty.
		prepare = func() *apiError {
			if err := e.Empty(name); err != nil {
				return errorf(codes.Internal, "deleting the cluster's contents: %v", err)
			}
			return nil
		}
	}
	return s.startOpPrepared(c, containerpb.Operation_DELETE_CLUSTER, name, prepare, func() *apiError {
		delete(s.clusters, name)
		delete(s.dwsByCluster, name)
		if s.planes != nil {
			s.planes.Close(name)
		}
		return nil
	}), nil
}

// mutateCluster runs an in-place cluster change as an UPDATE_CLUSTER operation: the change is checked at once and
// applied when the operation is DONE, with the cluster RECONCILING meanwhile.
func (s *Server) mutateCluster(r *request, check func(c *cluster) (apply func(), e *apiError)) (proto.Message, *apiError) {
	c, e := s.lookupCluster(r.parts)
	if e != nil {
		return nil, e
	}
	if e := s.checkIdle(c); e != nil {
		return nil, e
	}
	apply, e := check(c)
	if e != nil {
		return nil, e
	}
	c.pb.Status = containerpb.Cluster_RECONCILING
	return s.startOp(c, containerpb.Operation_UPDATE_CLUSTER, clusterName(r.parts[1], r.parts[3], r.parts[5]), func() *apiError {
		apply()
		c.pb.Status = containerpb.Cluster_RUNNING
		return nil
	}), nil
}

func (s *Server) updateCluster(r *request) (proto.Message, *apiError) {
	req := &containerpb.UpdateClusterRequest{}
	if e := s.decode(r, req); e != nil {
		return nil, e
	}
	u := req.GetUpdate()
	if u == nil {
		return nil, invalid("Must provide an update.") // GKE's words: pulumi/pulumi-google-native#418
	}
	// A node pool's autoscaling is changed through the cluster ("gcloud container clusters update --node-pool").
	if u.DesiredNodePoolAutoscaling != nil {
		c, e := s.lookupCluster(r.parts)
		if e != nil {
			return nil, e
		}
		np := findPool(c, u.DesiredNodePoolId)
		if np == nil {
			return nil, notFound(clusterName(r.parts[1], r.parts[3], r.parts[5]) + "/nodePools/" + u.DesiredNodePoolId)
		}
		return s.changeAutoscaling(c, np, u.DesiredNodePoolAutoscaling, containerpb.Operation_UPDATE_CLUSTER)
	}
	return s.mutateCluster(r, func(c *cluster) (func(), *apiError) {
		var changes []func()
		if u.DesiredAddonsConfig != nil {
			changes = append(changes, func() { c.pb.AddonsConfig = mergeAddons(c.pb.AddonsConfig, u.DesiredAddonsConfig) })
		}
		if u.DesiredGcfsConfig != nil {
			changes = append(changes, func() {
				if c.pb.NodePoolDefaults == nil {
					c.pb.NodePoolDefaults = &containerpb.NodePoolDefaults{}
				}
				if c.pb.NodePoolDefaults.NodeConfigDefaults == nil {
					c.pb.NodePoolDefaults.NodeConfigDefaults = &containerpb.NodeConfigDefaults{}
				}
				c.pb.NodePoolDefaults.NodeConfigDefaults.GcfsConfig = u.DesiredGcfsConfig
			})
		}
		if u.DesiredReleaseChannel != nil {
			changes = append(changes, func() { c.pb.ReleaseChannel = u.DesiredReleaseChannel })
		}
		if v := u.DesiredMasterVersion; v != "" {
			ch := c.pb.GetReleaseChannel().GetChannel()
			if u.DesiredReleaseChannel != nil {
				ch = u.DesiredReleaseChannel.GetChannel()
			}
			resolved, e := resolveVersionIn(v, ch)
			if e != nil {
				return nil, e
			}
			changes = append(changes, func() { c.pb.CurrentMasterVersion = resolved })
		}
		if len(changes) == 0 {
			return nil, invalid("Must specify a field to update.")
		}
		return func() {
			for _, f := range changes {
				f()
			}
		}, nil
	})
}

func (s *Server) setAddons(r *request) (proto.Message, *apiError) {
	req := &containerpb.SetAddonsConfigRequest{}
	if e := s.decode(r, req); e != nil {
		return nil, e
	}
	if req.AddonsConfig == nil {
		return nil, invalid("Addons_config must be specified.") // GKE's words: GoogleCloudPlatform/cloud-foundation-toolkit#799
	}
	return s.mutateCluster(r, func(c *cluster) (func(), *apiError) {
		return func() { c.pb.AddonsConfig = mergeAddons(c.pb.AddonsConfig, req.AddonsConfig) }, nil
	})
}

func (s *Server) setResourceLabels(r *request) (proto.Message, *apiError) {
	req := &containerpb.SetLabelsRequest{}
	if e := s.decode(r, req); e != nil {
		return nil, e
	}
	c, e := s.lookupCluster(r.parts)
	if e != nil {
		return nil, e
	}
	if req.LabelFingerprint != "" && req.LabelFingerprint != c.pb.LabelFingerprint {
		// "Labels could not be set due to fingerprint mismatch" is GKE's, as rancher/gke-operator (pkg/gke/update.go)
		// matches it to retry; the rest of GKE's sentence is not on record, so the message is the emulator's, with
		// that phrase kept for such clients.
		return nil, errorf(codes.FailedPrecondition, "gkeemu: Labels could not be set due to fingerprint mismatch: the request's labelFingerprint %q is not the cluster's %q; read the cluster again and send its labelFingerprint.",
			req.LabelFingerprint, c.pb.LabelFingerprint)
	}
	return s.mutateCluster(r, func(c *cluster) (func(), *apiError) {
		return func() {
			c.pb.ResourceLabels = req.ResourceLabels
			c.pb.LabelFingerprint = fmt.Sprintf("%08x", len(req.ResourceLabels)*2654435761+s.nextID)
		}, nil
	})
}

// mergeAddons sets the add-ons that the request names and keeps the others, as GKE does.
func mergeAddons(cur, in *containerpb.AddonsConfig) *containerpb.AddonsConfig {
	if cur == nil {
		out, _ := proto.Clone(in).(*containerpb.AddonsConfig)
		return out
	}
	// Field by field, not proto.Merge: an add-on turned off ({"disabled": true} -> {}) must replace the old message.
	out, _ := proto.Clone(cur).(*containerpb.AddonsConfig)
	dst := out.ProtoReflect()
	in.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		dst.Set(fd, v)
		return true
	})
	return out
}

func findPool(c *cluster, name string) *containerpb.NodePool {
	for _, np := range c.pb.NodePools {
		if np.Name == name {
			return np
		}
	}
	return nil
}
