package gke

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"

	"google.golang.org/api/googleapi"
)

// Reservation is what a node pool's plan needs of a Compute Engine reservation: how many VMs of which machine type
// it holds, and how many of them are in use.
type Reservation struct {
	Project, Zone, Name string
	MachineType         string
	Count, InUse        int64
}

// Reservation reads a zonal reservation (Compute's reservations.get); nil without an error when there is none of
// that name in the zone.
func (c *Client) Reservation(ctx context.Context, project, zone, name string) (*Reservation, error) {
	if c.compute == nil {
		return nil, errors.New("this client has no Compute Engine API")
	}
	r, err := c.compute.Get(project, zone, name).Context(ctx).Do()
	var gerr *googleapi.Error
	if errors.As(err, &gerr) && gerr.Code == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading reservation %s in %s of project %s: %w", name, zone, project, err)
	}
	out := &Reservation{Project: project, Zone: zone, Name: name}
	if s := r.SpecificReservation; s != nil {
		out.Count, out.InUse = s.Count, s.InUseCount
		if s.InstanceProperties != nil {
			// Compute may answer with the machine type's name or its URL.
			out.MachineType = path.Base(s.InstanceProperties.MachineType)
		}
	}
	return out, nil
}
