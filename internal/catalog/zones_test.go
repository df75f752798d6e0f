package catalog

import "testing"

func TestOffersTPU(t *testing.T) {
	for _, tc := range []struct {
		machine, zone string
		want          bool
	}{
		{"ct6e-standard-4t", "us-east5-b", true},     // the tutorial's zone
		{"ct6e-standard-4t", "us-central1-a", false}, // v5e and v5p, no v6e
		{"ct5lp-hightpu-4t", "us-central1-a", true},  // v5e
		{"ct4p-hightpu-4t", "us-east5-b", false},     // v4 is in us-central2-b only
		{"ct6e-standard-4t", "northamerica-northeast1-a", false},
		{"ct6e-standard-4t", "europe-west4-a", true}, // not on record: not checked
		{"ct6e-standard-4t", "us-south1-ai1b", true}, // an AI zone: not on record
		{"n2-standard-8", "us-central1-a", true},     // not a TPU
	} {
		if got := OffersTPU(tc.machine, tc.zone); got != tc.want {
			t.Errorf("OffersTPU(%s, %s) = %v, want %v", tc.machine, tc.zone, got, tc.want)
		}
	}
}

func TestRegionOf(t *testing.T) {
	for in, want := range map[string]string{"us-east5-b": "us-east5", "us-south1-ai1b": "us-south1", "us-east5": "us-east5"} {
		if got := RegionOf(in); got != want {
			t.Errorf("RegionOf(%s) = %s, want %s", in, got, want)
		}
	}
}
