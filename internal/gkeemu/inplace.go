package gkeemu

import (
	"slices"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// updateHandled are the fields of UpdateNodePoolRequest that updateNodePool reads itself: the pool's name, and the
// fields with rules of their own (a TPU's machine type, flex-start, the disk, the surge settings...). The etag is
// taken and not checked: no client of the emulator sends one.
var updateHandled = []protoreflect.Name{
	"project_id", "zone", "cluster_id", "node_pool_id", "name", "etag",
	"node_version", "image_type", "locations", "upgrade_settings", "tags", "taints", "labels", "resource_labels",
	"gcfs_config", "gvnic", "machine_type", "disk_type", "disk_size_gb", "queued_provisioning", "max_run_duration",
	"flex_start", "boot_disk",
}

// updateMerged are the fields whose update changes only the parts it names: gcloud's --enable-private-nodes sends
// nodeNetworkConfig with that one flag, and the pool keeps its pod range.
var updateMerged = []protoreflect.Name{"node_network_config"}

// updateHomes names where a field of the request is kept when the pool's config and the pool have none of its name.
var updateHomes = map[protoreflect.Name]protoreflect.Name{"node_network_config": "network_config"}

// inPlace gives the changes of every other field the update sets: each is kept as the request gives it, in the field
// of the same name (or updateHomes') and kind of the pool's config, or else of the pool. GKE changes all of them in
// place (a workload metadata mode that gcloud sets, a kubelet setting); dropping one would answer an update that did
// nothing. A field with no home here is refused as not implemented, not dropped.
func inPlace(req *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) ([]func(), *apiError) {
	var changes []func()
	var missing *apiError
	r := req.ProtoReflect()
	r.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if slices.Contains(updateHandled, fd.Name()) {
			return true
		}
		to, home := homeOf(fd, np)
		if to == nil {
			missing = errorf(codes.Unimplemented, "The emulator does not implement updating %s of a node pool.", fd.JSONName())
			return false
		}
		if slices.Contains(updateMerged, fd.Name()) {
			changes = append(changes, func() { proto.Merge(home.Mutable(to).Message().Interface(), v.Message().Interface()) })
			return true
		}
		changes = append(changes, func() { home.Set(to, cloneValue(home, to, v)) })
		return true
	})
	return changes, missing
}

// homeOf is the field of the pool's config or of the pool that keeps the request's field fd, and its message.
func homeOf(fd protoreflect.FieldDescriptor, np *containerpb.NodePool) (protoreflect.FieldDescriptor, protoreflect.Message) {
	name := fd.Name()
	if n, ok := updateHomes[name]; ok {
		name = n
	}
	for _, m := range []protoreflect.Message{np.Config.ProtoReflect(), np.ProtoReflect()} {
		to := m.Descriptor().Fields().ByName(name)
		if to != nil && sameKind(fd, to) {
			return to, m
		}
	}
	return nil, nil
}

func sameKind(a, b protoreflect.FieldDescriptor) bool {
	if a.Cardinality() != b.Cardinality() || a.Kind() != b.Kind() || a.IsMap() || b.IsMap() {
		return false
	}
	if a.Message() != nil {
		return b.Message() != nil && a.Message().FullName() == b.Message().FullName()
	}
	return true
}

// cloneValue copies v, the request's, for the field to of home: the pool keeps none of the request's messages.
func cloneValue(home protoreflect.Message, to protoreflect.FieldDescriptor, v protoreflect.Value) protoreflect.Value {
	clone := func(v protoreflect.Value) protoreflect.Value {
		if to.Message() == nil {
			return v
		}
		return protoreflect.ValueOfMessage(proto.Clone(v.Message().Interface()).ProtoReflect())
	}
	if !to.IsList() {
		return clone(v)
	}
	out := home.NewField(to).List()
	for i := range v.List().Len() {
		out.Append(clone(v.List().Get(i)))
	}
	return protoreflect.ValueOfList(out)
}
