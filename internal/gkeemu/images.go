package gkeemu

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
)

// Images are the Compute Engine images that secondary boot disks are made from (GKE's "Use secondary boot disks to
// preload data or container images"), by projects/P/global/images/NAME. The admin API makes them, as
// gke-disk-image-builder would.

var diskImageRE = regexp.MustCompile(`^(projects/([^/]+)/)?global/images/([^/]+)$`)

// AddImage makes the image projects/project/global/images/name.
func (s *Server) AddImage(project, name string) error {
	if project == "" || name == "" {
		return fmt.Errorf(`an image needs "project" and "name", got %q and %q`, project, name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.images == nil {
		s.images = map[string]bool{}
	}
	s.images["projects/"+project+"/global/images/"+name] = true
	return nil
}

// checkBootDisks (s.mu held) refuses secondary boot disks whose image is not a path GKE takes, or does not exist.
// GKE's words for either are not on record; the refusals are 400s in plain words, marked "gkeemu:".
func (s *Server) checkBootDisks(c *cluster, np *containerpb.NodePool) *apiError {
	for i, d := range np.GetConfig().GetSecondaryBootDisks() {
		m := diskImageRE.FindStringSubmatch(d.GetDiskImage())
		if m == nil {
			return invalid("gkeemu: the image of secondary boot disk %d, %q, must be global/images/IMAGE or projects/PROJECT/global/images/IMAGE.", i, d.GetDiskImage())
		}
		project := m[2]
		if project == "" {
			project = c.project
		}
		if full := "projects/" + project + "/global/images/" + m[3]; !s.images[full] {
			return invalid("gkeemu: secondary boot disk %d of node pool %q: image '%s' was not found; make it first with the admin API (POST /emulator/v1/images).", i, np.GetName(), full)
		}
	}
	return nil
}

// serveImages answers the admin API: POST {"project": P, "name": NAME} makes an image.
func (s *Server) serveImages(w http.ResponseWriter, r *http.Request) {
	var in struct{ Project, Name string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, invalid(`images wants {"project": PROJECT, "name": NAME}: %v`, err))
		return
	}
	if err := s.AddImage(strings.TrimSpace(in.Project), strings.TrimSpace(in.Name)); err != nil {
		writeError(w, invalid("%v", err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
