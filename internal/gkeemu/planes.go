package gkeemu

import (
	"sort"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
)

// ControlPlanes gives each emulated cluster a Kubernetes control plane of its own, as GKE gives each cluster its
// master: its endpoint and CA are what GetCluster reports, so `gcloud container clusters get-credentials` gives each
// cluster a context of its own.
type ControlPlanes interface {
	// Open gives the new cluster (projects/P/locations/L/clusters/C) its endpoint (HOST:PORT) and CA (base64 PEM, as
	// masterAuth.clusterCaCertificate). It is called with the emulator's lock held: it must not call the emulator.
	Open(cluster string) (endpoint, ca string, err error)
	// Close ends the cluster's control plane once its deletion is done; what ran there is gone with it (a control
	// plane kept for another cluster was emptied first: Emptier). It is called with the emulator's lock held.
	Close(cluster string)
}

// Emptier is a ControlPlanes that empties a cluster's control plane when the cluster is deleted, before the
// deletion is done, where closing it would not (a control plane that serves one cluster after another).
type Emptier interface {
	// Empty deletes everything the cluster's control plane holds beyond what it started with, and returns when it
	// is gone. It is called without the emulator's lock: it may take seconds.
	Empty(cluster string) error
}

// Scope selects the emulated clusters (by projects/P/locations/L/clusters/C) whose nodes, DWS requests and add-ons
// one control plane holds. Nil holds every cluster.
type Scope func(cluster string) bool

func (sc Scope) has(cluster string) bool { return sc == nil || sc(cluster) }

// SetControlPlanes makes every cluster, existing and new, get its endpoint and CA from cp, oldest cluster first.
func (s *Server) SetControlPlanes(cp ControlPlanes) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.planes = cp
	keys := make([]string, 0, len(s.clusters))
	for k := range s.clusters {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return s.clusters[keys[i]].pb.Id < s.clusters[keys[j]].pb.Id })
	for _, k := range keys {
		if err := s.openPlane(k, s.clusters[k].pb); err != nil {
			return err
		}
	}
	return nil
}

// openPlane points the cluster at its control plane: the one cp opens, or the shared endpoint without cp.
func (s *Server) openPlane(key string, pb *containerpb.Cluster) error {
	endpoint, ca := s.opts.ClusterEndpoint, s.opts.ClusterCACertificate
	if s.planes != nil {
		var err error
		if endpoint, ca, err = s.planes.Open(key); err != nil {
			return err
		}
	}
	pb.Endpoint = endpoint
	pb.MasterAuth = &containerpb.MasterAuth{ClusterCaCertificate: ca}
	return nil
}

// ClusterKey is the key of the emulated cluster named name (in any project and location), "" when there is none or
// the name is ambiguous.
func (s *Server) ClusterKey(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clusterKeyLocked(name)
}

func (s *Server) clusterKeyLocked(name string) string {
	found := ""
	for k, c := range s.clusters {
		if c.pb.Name == name {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

// dwsSetting is what the simulated DWS does for one cluster's requests, when set apart from the simulator's own mode.
type dwsSetting struct {
	mode  DWSMode
	delay time.Duration
}

// SetClusterDWS makes the DWS of the named cluster's control plane answer its requests with mode after delay, apart
// from other clusters (the admin API's `{"cluster": NAME}`).
func (s *Server) SetClusterDWS(name string, mode DWSMode, delay time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := s.clusterKeyLocked(name)
	if key == "" {
		return false
	}
	if s.dwsByCluster == nil {
		s.dwsByCluster = map[string]dwsSetting{}
	}
	s.dwsByCluster[key] = dwsSetting{mode, delay}
	return true
}

// clusterDWS is the setting of the first cluster in scope that has one.
func (s *Server) clusterDWS(sc Scope) (dwsSetting, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, set := range s.dwsByCluster {
		if _, live := s.clusters[k]; live && sc.has(k) {
			return set, true
		}
	}
	return dwsSetting{}, false
}
