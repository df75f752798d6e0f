package provider

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	clusterNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)
	clusterPathRE = regexp.MustCompile(`^projects/([^/]+)/(?:locations|zones)/([^/]+)/clusters/([a-z]([-a-z0-9]{0,38}[a-z0-9])?)$`)
)

// clusterRef names a GKE cluster fully.
type clusterRef struct {
	Project, Location, Name string
}

func (c clusterRef) String() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", c.Project, c.Location, c.Name)
}

// parseCluster reads a `cluster` attribute: a bare name, or projects/P/locations/L/clusters/C (the form of the
// cluster resource's id). A bare name leaves Project and Location empty.
func parseCluster(s string) (clusterRef, error) {
	if m := clusterPathRE.FindStringSubmatch(s); m != nil {
		return clusterRef{Project: m[1], Location: m[2], Name: m[3]}, nil
	}
	if clusterNameRE.MatchString(s) {
		return clusterRef{Name: s}, nil
	}
	return clusterRef{}, fmt.Errorf("%q is neither a cluster name (lowercase letters, digits and dashes, at most 40, "+
		"starting with a letter) nor a cluster id of the form projects/PROJECT/locations/LOCATION/clusters/NAME", s)
}

// resolveCluster fills in project and location: from the cluster id if it is one, else from the resource's own
// attributes, else from the provider's defaults.
func resolveCluster(cluster, project, location string, c clients) (clusterRef, error) {
	ref, err := parseCluster(cluster)
	if err != nil {
		return ref, err
	}
	defProject, defLocation := c.Defaults()
	pick := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	if ref.Project != "" && project != "" && ref.Project != project {
		return ref, fmt.Errorf("cluster id names project %q but project is %q; drop one of them", ref.Project, project)
	}
	if ref.Location != "" && location != "" && ref.Location != location {
		return ref, fmt.Errorf("cluster id names location %q but location is %q; drop one of them", ref.Location, location)
	}
	ref.Project = pick(ref.Project, project, defProject)
	ref.Location = pick(ref.Location, location, defLocation)
	if ref.Project == "" {
		return ref, fmt.Errorf("no project for cluster %q: set project on the resource or the provider, GOOGLE_PROJECT, or use a full cluster id", cluster)
	}
	if ref.Location == "" {
		return ref, fmt.Errorf("no location for cluster %q: set location on the resource or the provider, or use a full cluster id", cluster)
	}
	return ref, nil
}

// sameCluster reports whether two spellings of the cluster attribute name the same cluster.
func sameCluster(a, b string) bool {
	ra, errA := parseCluster(a)
	rb, errB := parseCluster(b)
	if errA != nil || errB != nil {
		return a == b
	}
	if ra.Project != "" && rb.Project != "" {
		return ra == rb
	}
	return ra.Name == rb.Name
}

// splitPoolPairID reads projects/P/locations/L/clusters/C/nodePools/ONDEMAND,FLEX.
func splitPoolPairID(id string) (clusterRef, string, string, error) {
	i := strings.Index(id, "/nodePools/")
	if i < 0 {
		return clusterRef{}, "", "", fmt.Errorf("id %q must look like projects/PROJECT/locations/LOCATION/clusters/CLUSTER/nodePools/ON_DEMAND_POOL,FLEX_START_POOL", id)
	}
	ref, err := parseCluster(id[:i])
	if err != nil || ref.Project == "" {
		return clusterRef{}, "", "", fmt.Errorf("id %q must look like projects/PROJECT/locations/LOCATION/clusters/CLUSTER/nodePools/ON_DEMAND_POOL,FLEX_START_POOL", id)
	}
	names := strings.Split(id[i+len("/nodePools/"):], ",")
	if len(names) != 2 || names[0] == "" || names[1] == "" || names[0] == names[1] {
		return clusterRef{}, "", "", fmt.Errorf("id %q must end with two different pool names, the on-demand one first: nodePools/ON_DEMAND_POOL,FLEX_START_POOL", id)
	}
	return ref, names[0], names[1], nil
}

func poolPairID(c clusterRef, onDemand, flex string) string {
	return fmt.Sprintf("%s/nodePools/%s,%s", c, onDemand, flex)
}
