package gkeemu

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
)

// computePrefix is where the emulator answers the few Compute Engine calls gcloud makes for
// `gcloud compute reservations create|describe|delete`, with api_endpoint_overrides/compute pointed at it.
const computePrefix = "/compute/v1/"

// computeReservation is the part of Compute's Reservation resource the emulator keeps (specificReservation's count,
// a string as Compute writes int64s, and instanceProperties.machineType).
type computeReservation struct {
	Kind                        string `json:"kind,omitempty"`
	Name                        string `json:"name"`
	Zone                        string `json:"zone,omitempty"`
	SelfLink                    string `json:"selfLink,omitempty"`
	Status                      string `json:"status,omitempty"`
	SpecificReservationRequired bool   `json:"specificReservationRequired,omitempty"`
	SpecificReservation         struct {
		Count              string `json:"count"`
		InUseCount         string `json:"inUseCount,omitempty"`
		InstanceProperties struct {
			MachineType string `json:"machineType"`
		} `json:"instanceProperties"`
	} `json:"specificReservation"`
}

// serveCompute answers projects/P/zones/Z/reservations[/NAME] (insert, get, delete) and the zone operations gcloud
// polls. Every operation is done when answered: the emulator makes reservations at once.
func (s *Server) serveCompute(w http.ResponseWriter, r *http.Request) {
	p := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, computePrefix), "/"), "/")
	if len(p) < 5 || p[0] != "projects" || p[2] != "zones" {
		writeError(w, errorf(codes.NotFound, "The resource '%s' was not found", r.URL.Path))
		return
	}
	project, zone, base := p[1], p[3], computeBase(r)+"projects/"+p[1]+"/zones/"+p[3]+"/"
	switch {
	case p[4] == "operations" && len(p) >= 6 && (r.Method == http.MethodGet || r.Method == http.MethodPost):
		writeJSON(w, computeOperation(base, p[5], "", ""))
	case p[4] == "reservations" && len(p) == 5 && r.Method == http.MethodPost:
		var in computeReservation
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			writeError(w, invalid("Invalid JSON payload received. %v", err))
			return
		}
		count, err := strconv.Atoi(in.SpecificReservation.Count)
		if err != nil {
			writeError(w, invalid("gkeemu: reservation count '%s' (specificReservation.count) is not a whole number.", in.SpecificReservation.Count))
			return
		}
		machineType := in.SpecificReservation.InstanceProperties.MachineType
		existed, err := s.putReservation(Reservation{Project: project, Zone: zone, Name: in.Name, MachineType: machineType[strings.LastIndex(machineType, "/")+1:],
			Count: count, SpecificOnly: in.SpecificReservationRequired}, false)
		switch {
		case err != nil:
			writeError(w, invalid("%v", err))
			return
		case existed: // the emulator keys reservations by zone and name
			writeError(w, errorf(codes.AlreadyExists, "The resource 'projects/%s/zones/%s/reservations/%s' already exists", project, zone, in.Name))
			return
		}
		writeJSON(w, computeOperation(base, "operation-insert-"+in.Name, "insert", base+"reservations/"+in.Name))
	case p[4] == "reservations" && len(p) == 6:
		res := s.reservation(project, zone, p[5])
		switch {
		case res == nil:
			writeError(w, errorf(codes.NotFound, "The resource 'projects/%s/zones/%s/reservations/%s' was not found", project, zone, p[5]))
		case r.Method == http.MethodDelete:
			s.deleteReservation(res)
			writeJSON(w, computeOperation(base, "operation-delete-"+p[5], "delete", base+"reservations/"+p[5]))
		case r.Method != http.MethodGet:
			writeError(w, errorf(codes.Unimplemented, "The emulator serves reservations' insert, get and delete; %s is not implemented.", r.Method))
		default:
			out := computeReservation{Kind: "compute#reservation", Name: res.Name, Zone: base[:len(base)-1], SelfLink: base + "reservations/" + res.Name,
				Status: "READY", SpecificReservationRequired: res.SpecificOnly}
			out.SpecificReservation.Count, out.SpecificReservation.InUseCount = strconv.Itoa(res.Count), strconv.Itoa(res.InUse)
			out.SpecificReservation.InstanceProperties.MachineType = res.MachineType
			writeJSON(w, out)
		}
	default:
		writeError(w, errorf(codes.NotFound, "The resource '%s' was not found", r.URL.Path))
	}
}

// computeBase is the URL Compute's links start with, on this server: gcloud parses them to poll and to read back.
func computeBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s%s", scheme, r.Host, computePrefix)
}

func computeOperation(base, name, kind, target string) map[string]any {
	return map[string]any{"kind": "compute#operation", "id": "1", "name": name, "operationType": kind, "targetLink": target,
		"status": "DONE", "progress": 100, "zone": base[:len(base)-1], "selfLink": base + "operations/" + name}
}

// reservation is the reservation of that name in zone, of project or of any project ("": whichever project).
func (s *Server) reservation(project, zone, name string) *Reservation {
	for _, r := range s.Reservations() {
		if r.Zone == zone && r.Name == name && (r.Project == "" || project == "" || r.Project == project) {
			return &r
		}
	}
	return nil
}

func (s *Server) deleteReservation(r *Reservation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.reservations, r.key())
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(v)
}
