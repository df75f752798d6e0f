package gkeemu

import (
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Edit changes one field of a stored cluster or node pool, named by its path in GKE's JSON field names
// ("config.machineType", "autoscaling.maxNodeCount"), as an edit in the console or by another API client would leave
// it; a null value removes the field. It makes no operation and checks only that the value fits the field: a test
// of drift needs the object as another writer left it, whatever GKE would have let that writer do. name is
// projects/P/locations/L/clusters/C, or that followed by /nodePools/NAME.
func (s *Server) Edit(name, field string, value json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	clusterPath, pool, isPool := strings.Cut(name, "/nodePools/")
	c, ok := s.clusters[clusterPath]
	if !ok {
		return fmt.Errorf("no cluster %s", clusterPath)
	}
	if isPool {
		np := findPool(c, pool)
		if np == nil {
			return fmt.Errorf("no node pool %s in cluster %s", pool, clusterPath)
		}
		return editMessage(np, field, value)
	}
	if field == "nodePools" || strings.HasPrefix(field, "nodePools.") {
		return fmt.Errorf("edit a node pool by its own name, not through the cluster's nodePools")
	}
	// The pools keep their identity: the autoscaler and the node simulation hold them.
	pools := c.pb.NodePools
	c.pb.NodePools = nil
	err := editMessage(c.pb, field, value)
	c.pb.NodePools = pools
	return err
}

// editMessage sets field of m through its JSON form, so that the path and the value are GKE's wire format.
func editMessage(m proto.Message, field string, value json.RawMessage) error {
	raw, err := protojson.Marshal(m)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(value, &v); err != nil {
		return fmt.Errorf("value of %s: %w", field, err)
	}
	parts := strings.Split(field, ".")
	at := doc
	for _, p := range parts[:len(parts)-1] {
		next, ok := at[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			at[p] = next
		}
		at = next
	}
	last := parts[len(parts)-1]
	if v == nil {
		delete(at, last)
	} else {
		at[last] = v
		// A member of a oneof replaces the member that was set, as a writer through the API replaces it.
		for _, other := range oneofSiblings(m.ProtoReflect().Descriptor(), parts) {
			delete(at, other)
		}
	}
	raw, err = json.Marshal(doc)
	if err != nil {
		return err
	}
	edited := m.ProtoReflect().New().Interface()
	if err := protojson.Unmarshal(raw, edited); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	proto.Reset(m)
	proto.Merge(m, edited)
	return nil
}

// oneofSiblings are the JSON names of the other members of the oneof that the field at path belongs to, if any.
func oneofSiblings(md protoreflect.MessageDescriptor, path []string) []string {
	for _, p := range path[:len(path)-1] {
		fd := md.Fields().ByJSONName(p)
		if fd == nil || fd.Message() == nil {
			return nil
		}
		md = fd.Message()
	}
	fd := md.Fields().ByJSONName(path[len(path)-1])
	if fd == nil || fd.ContainingOneof() == nil || fd.ContainingOneof().IsSynthetic() {
		return nil
	}
	var out []string
	fields := fd.ContainingOneof().Fields()
	for i := range fields.Len() {
		if f := fields.Get(i); f != fd {
			out = append(out, f.JSONName())
		}
	}
	return out
}
