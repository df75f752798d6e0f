package gke

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/impersonate"
	"google.golang.org/api/option"
)

// CloudPlatformScope is the scope GKE calls need.
const CloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// Credentials are the ways a user can say who calls GKE, in the provider's order of precedence.
type Credentials struct {
	// AccessToken is a ready OAuth2 access token (GOOGLE_OAUTH_ACCESS_TOKEN); it cannot be refreshed.
	AccessToken string
	// JSON is a service-account or authorized-user key, as JSON text or a path to a file holding it.
	JSON string
	// ImpersonateServiceAccount, when set, exchanges the above (or ADC) for that service account's tokens.
	ImpersonateServiceAccount string
}

// ReadCredentialsJSON returns the key JSON that c.JSON names: the text itself when it is JSON, else the file's content.
func ReadCredentialsJSON(s string) ([]byte, error) {
	if strings.HasPrefix(strings.TrimSpace(s), "{") {
		return []byte(s), nil
	}
	b, err := os.ReadFile(s)
	if err != nil {
		// Name the path but never echo content: s may be a mangled key rather than a path.
		if len(s) > 200 || strings.ContainsAny(s, "\n{") {
			return nil, errors.New("credentials are neither JSON nor a readable file path")
		}
		return nil, fmt.Errorf("reading credentials file %q: %w", s, err)
	}
	return b, nil
}

// TokenSource turns c into a refreshing token source. It makes no request: the first token is fetched on first use.
func TokenSource(ctx context.Context, c Credentials) (oauth2.TokenSource, error) {
	var base oauth2.TokenSource
	switch {
	case c.AccessToken != "":
		base = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: c.AccessToken})
	case c.JSON != "":
		b, err := ReadCredentialsJSON(c.JSON)
		if err != nil {
			return nil, err
		}
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, errors.New("credentials are not valid JSON (expected a service account or authorized user key)")
		}
		creds, err := google.CredentialsFromJSONWithType(ctx, b, google.CredentialsType(head.Type), CloudPlatformScope)
		if err != nil {
			return nil, fmt.Errorf("loading credentials of type %q: %w", head.Type, err)
		}
		base = creds.TokenSource
	default:
		creds, err := google.FindDefaultCredentials(ctx, CloudPlatformScope)
		if err != nil {
			return nil, fmt.Errorf("no credentials configured and Application Default Credentials not found "+
				"(set access_token, credentials, GOOGLE_OAUTH_ACCESS_TOKEN or GOOGLE_CREDENTIALS, or run "+
				"'gcloud auth application-default login'): %w", err)
		}
		base = creds.TokenSource
	}
	if c.ImpersonateServiceAccount != "" {
		ts, err := impersonate.CredentialsTokenSource(ctx, impersonate.CredentialsConfig{
			TargetPrincipal: c.ImpersonateServiceAccount,
			Scopes:          []string{CloudPlatformScope},
		}, option.WithTokenSource(base))
		if err != nil {
			return nil, fmt.Errorf("impersonating %s: %w", c.ImpersonateServiceAccount, err)
		}
		base = ts
	}
	return oauth2.ReuseTokenSource(nil, base), nil
}
