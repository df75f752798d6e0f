package gkeemu

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
)

func TestResolveVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		asked   string
		channel containerpb.ReleaseChannel_Channel
		want    string
	}{
		{"", containerpb.ReleaseChannel_UNSPECIFIED, "1.35.8-gke.1036000"},
		{"-", containerpb.ReleaseChannel_UNSPECIFIED, "1.35.8-gke.1036000"},
		{"", containerpb.ReleaseChannel_REGULAR, "1.35.8-gke.1036000"},
		{"", containerpb.ReleaseChannel_RAPID, "1.36.4-gke.1391000"},
		{"", containerpb.ReleaseChannel_STABLE, "1.35.6-gke.1250000"},
		{"latest", containerpb.ReleaseChannel_UNSPECIFIED, "1.36.4-gke.1391000"},
		{"1.34", containerpb.ReleaseChannel_UNSPECIFIED, "1.34.8-gke.1000000"},
		{"1.35", containerpb.ReleaseChannel_STABLE, "1.35.6-gke.1250000"},
		{"1.35", containerpb.ReleaseChannel_REGULAR, "1.35.8-gke.1036000"},
		{"1.36", containerpb.ReleaseChannel_STABLE, ""},
		{"1.35.7", containerpb.ReleaseChannel_UNSPECIFIED, "1.35.7-gke.1222000"},
		{"1.36.4-gke.1082000", containerpb.ReleaseChannel_UNSPECIFIED, "1.36.4-gke.1082000"},
		{"1.37", containerpb.ReleaseChannel_RAPID, ""},
		{"1.33", containerpb.ReleaseChannel_UNSPECIFIED, ""},
		{"1.3", containerpb.ReleaseChannel_UNSPECIFIED, ""},
	} {
		got, err := resolveVersionIn(tc.asked, tc.channel)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%q in %v: %q, want GKE's refusal", tc.asked, tc.channel, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q in %v: %q, %v; want %q", tc.asked, tc.channel, got, err, tc.want)
		}
	}
}

// TestVersionRefusals: GKE's words for a version it does not offer (googlecodelabs/feedback#793) and for a string
// that is no version (kelseyhightower/kubernetes-cluster-federation#40), both 400.
func TestVersionRefusals(t *testing.T) {
	t.Parallel()
	for asked, want := range map[string]string{
		"1.33":               `Master version "1.33" is unsupported.`,
		"1.16.8-gke.15":      `Master version "1.16.8-gke.15" is unsupported.`,
		"one-point-thirty-5": "Version is invalid.",
	} {
		_, err := resolveVersion(asked)
		if err == nil || err.message != want || err.httpCode != 400 {
			t.Errorf("%q: %v, want 400 %q", asked, err, want)
		}
	}
}
