package gkeemu

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Reservation is a Compute Engine reservation of VMs of one machine type in one zone, as a node pool consumes it:
// GKE gives a pool of reservation affinity SPECIFIC_RESERVATION that names it, or ANY_RESERVATION_THEN_FAIL (when the
// reservation does not require specific targeting), nodes up to the reservation's count, and no more. Project empty
// matches pools of any project. ANY_RESERVATION pools fall back to on-demand capacity, and are not counted here.
type Reservation struct {
	Project     string `json:"project,omitempty"`
	Zone        string `json:"zone"`
	Name        string `json:"name"`
	MachineType string `json:"machineType"`
	Count       int    `json:"count"`
	// SpecificOnly is Compute's specificReservationRequired (gcloud's --require-specific-reservation): only pools
	// that name the reservation consume it.
	SpecificOnly bool `json:"specificReservationRequired,omitempty"`
	// InUse is how many nodes of the emulated pools consume it now (Compute's specificReservation.inUseCount).
	InUse int `json:"inUseCount"`
}

func (r Reservation) key() string { return r.Zone + "/" + r.Name }

// reservationKey is the key of the value of a pool's reservation affinity in zone, with the owner project the value
// names ("" for the pool's own). GKE takes RESERVATION, projects/OWNER/reservations/RESERVATION (a shared one), and
// either followed by /reservationBlocks/BLOCK[/reservationSubBlocks/SUB]; blocks draw on their reservation's count.
func reservationKey(value, zone string) (key, project, name string) {
	name = value
	if rest, ok := strings.CutPrefix(value, "projects/"); ok {
		if p, r, ok := strings.Cut(rest, "/reservations/"); ok {
			project, name = p, r
		}
	}
	name, _, _ = strings.Cut(name, "/reservationBlocks/")
	return zone + "/" + name, project, name
}

// AddReservation makes (or resizes) a reservation, as `gcloud compute reservations create` does.
func (s *Server) AddReservation(r Reservation) error {
	_, err := s.putReservation(r, true)
	return err
}

// putReservation keeps r; one of the same zone and name is replaced only when replace is set, and reported (in the
// same hold of s.mu, so two concurrent inserts cannot both make it).
func (s *Server) putReservation(r Reservation, replace bool) (existed bool, err error) {
	switch {
	case r.Name == "" || r.Zone == "" || r.MachineType == "":
		return false, fmt.Errorf(`a reservation needs "name", "zone" and "machineType", got %+v`, r)
	case r.Count < 1 || r.Count > 1000:
		return false, fmt.Errorf("the count of reservation %s must be an int in the range [1, 1000], got %d", r.Name, r.Count)
	}
	r.InUse = 0
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reservations == nil {
		s.reservations = map[string]*Reservation{}
	}
	if s.reservations[r.key()] != nil && !replace {
		return true, nil
	}
	s.reservations[r.key()] = &r
	return false, nil
}

// Reservations are the emulator's reservations with the nodes in use of each, by zone and name.
func (s *Server) Reservations() []Reservation {
	s.mu.Lock()
	defer s.mu.Unlock()
	use := s.reservationUseLocked()
	out := make([]Reservation, 0, len(s.reservations))
	for k, r := range s.reservations {
		v := *r
		v.InUse = use[k]
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}

// consumedReservationLocked is the reservation a pool of cluster c draws its nodes from, nil for a pool that consumes
// none or names one the emulator lacks. Callers hold s.mu.
func (s *Server) consumedReservationLocked(c *cluster, np *containerpb.NodePool) *Reservation {
	ra := np.GetConfig().GetReservationAffinity()
	if ra.GetConsumeReservationType() == containerpb.ReservationAffinity_ANY_RESERVATION_THEN_FAIL {
		return s.anyReservationLocked(c, np)
	}
	if ra.GetConsumeReservationType() != containerpb.ReservationAffinity_SPECIFIC_RESERVATION || len(ra.GetValues()) == 0 {
		return nil
	}
	for _, zone := range poolZones(c, np) {
		key, project, _ := reservationKey(ra.Values[0], zone)
		if r := s.reservations[key]; r != nil && (project == "" || r.Project == "" || r.Project == project) {
			return r
		}
	}
	return nil
}

// anyReservationLocked is the reservation a pool of affinity ANY_RESERVATION_THEN_FAIL draws from: the first, by
// zone and name, in one of its zones, of its machine type and project, open to any pool. (GKE may draw from several;
// the emulator keeps one pool on one reservation, which is exact where one matches.)
func (s *Server) anyReservationLocked(c *cluster, np *containerpb.NodePool) *Reservation {
	var keys []string
	for k, r := range s.reservations {
		if !r.SpecificOnly && r.MachineType == np.GetConfig().GetMachineType() && (r.Project == "" || r.Project == c.project) &&
			slices.Contains(poolZones(c, np), r.Zone) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return s.reservations[slices.Min(keys)]
}

// reservationUseLocked counts, per reservation, the nodes of the pools that consume it.
func (s *Server) reservationUseLocked() map[string]int {
	use := map[string]int{}
	for _, c := range s.clusters {
		for _, np := range c.pb.NodePools {
			if r := s.consumedReservationLocked(c, np); r != nil {
				use[r.key()] += c.nodeCounts[np.Name]
			}
		}
	}
	return use
}

func poolZones(c *cluster, np *containerpb.NodePool) []string {
	if len(np.GetLocations()) > 0 {
		return np.Locations
	}
	if len(c.pb.GetLocations()) > 0 {
		return c.pb.Locations
	}
	return []string{c.pb.Location}
}

// checkReservation (s.mu held) is GKE's check, when a pool is created, of the reservation it names: it must exist in the pool's
// zone (GKE's 404, as GKE words it: "Google Compute Engine: reservation "R" not found for node pool "NP" at zone
// "Z"."), and reserve the pool's machine type. GKE's words for a reservation of another machine type are not on
// record; the refusal is a 400 in plain words, marked "gkeemu:".
func (s *Server) checkReservation(c *cluster, np *containerpb.NodePool) *apiError {
	ra := np.GetConfig().GetReservationAffinity()
	if ra.GetConsumeReservationType() != containerpb.ReservationAffinity_SPECIFIC_RESERVATION {
		return nil
	}
	r := s.consumedReservationLocked(c, np)
	zones := poolZones(c, np)
	if r == nil {
		return errorf(codes.NotFound, "Google Compute Engine: reservation %q not found for node pool %q at zone %q.", ra.Values[0], np.Name, zones[0])
	}
	if r.MachineType != np.GetConfig().GetMachineType() {
		return invalid("gkeemu: reservation %q in zone %q reserves machine type %s, not %s of node pool %q; name a reservation of the pool's machine type.",
			ra.Values[0], r.Zone, r.MachineType, np.GetConfig().GetMachineType(), np.Name)
	}
	return s.checkReservationRoomLocked(np, r, int(np.InitialNodeCount))
}

// checkReservationRoomLocked refuses nodes a pool asks of its specific reservation that the reservation cannot give,
// at once, with Compute Engine's 429 as gcloud showed it for a pool created with more nodes than the reservation had
// left (GoogleCloudPlatform/gsutil#1000: "Reservation does not have enough resources for the request: specific
// reservation "reservation" is insufficient for node pool "np4" at zone "us-central1-c": required 1 and short of 1 VM
// count of machine type n2-standard-2."). The status name is not on record: RESOURCE_EXHAUSTED is the emulator's.
func (s *Server) checkReservationRoomLocked(np *containerpb.NodePool, r *Reservation, required int) *apiError {
	if r == nil || required <= 0 {
		return nil
	}
	if room := r.Count - s.reservationUseLocked()[r.key()]; required > room {
		return errorf(codes.ResourceExhausted, "Reservation does not have enough resources for the request: specific reservation %q is insufficient for node pool %q at zone %q: required %d and short of %d VM count of machine type %s.",
			r.Name, np.Name, r.Zone, required, required-max(room, 0), r.MachineType)
	}
	return nil
}

// reservationRoomLocked is how many more nodes the reservation a pool consumes can give it; capped is false for a
// pool that consumes no reservation (on-demand capacity, or ANY_RESERVATION, which falls back to it). A pool that
// must consume one and has none gets no node: the API's "If no reservation is available, fail the node creation".
func (s *Server) reservationRoomLocked(c *cluster, np *containerpb.NodePool) (room int, capped bool) {
	r := s.consumedReservationLocked(c, np)
	if r == nil {
		t := np.GetConfig().GetReservationAffinity().GetConsumeReservationType()
		return 0, t == containerpb.ReservationAffinity_SPECIFIC_RESERVATION || t == containerpb.ReservationAffinity_ANY_RESERVATION_THEN_FAIL
	}
	return r.Count - s.reservationUseLocked()[r.key()], true
}

// serveReservations answers the admin API: POST makes a reservation, GET lists them with their use.
func (s *Server) serveReservations(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Reservations())
		return
	}
	var res Reservation
	if err := json.NewDecoder(r.Body).Decode(&res); err != nil {
		writeError(w, invalid(`reservations wants {"name": NAME, "zone": ZONE, "machineType": TYPE, "count": VMS}: %v`, err))
		return
	}
	if err := s.AddReservation(res); err != nil {
		writeError(w, invalid("%v", err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// reservationNameKey is the one key GKE's reservation affinity takes for a specific reservation.
const reservationNameKey = "compute.googleapis.com/reservation-name"

// flexStartMaxRun is how long a VM that DWS provisions runs at most (GKE docs, concepts/dws: flex-start VMs and
// queued provisioning "can run for up to seven days").
const flexStartMaxRun = 7 * 24 * time.Hour

// validateMaxRunDuration refuses a run limit that is not positive, or that is longer than flex-start VMs run. GKE's
// words for either are not on record; the refusals are 400s in plain words, marked "gkeemu:".
func validateMaxRunDuration(pool string, d *durationpb.Duration, dws bool) *apiError {
	if d == nil {
		return nil
	}
	switch v := d.AsDuration(); {
	case v <= 0:
		return invalid("gkeemu: maxRunDuration %q of node pool %s must be positive.", protoDuration(d), pool)
	case dws && v > flexStartMaxRun:
		return invalid("gkeemu: maxRunDuration %q of node pool %s is too long: the Dynamic Workload Scheduler runs its VMs for at most 7 days (604800s).", protoDuration(d), pool)
	}
	return nil
}

func protoDuration(d *durationpb.Duration) string {
	return strconv.FormatFloat(d.AsDuration().Seconds(), 'f', -1, 64) + "s"
}
