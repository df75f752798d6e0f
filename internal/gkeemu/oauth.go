package gkeemu

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// TokenPath is where the emulator plays Google's OAuth 2.0 token endpoint: a service-account key whose token_uri
// points here is exchanged for an access token the emulator then accepts, as oauth2.googleapis.com/token does.
const TokenPath = "/token"

const jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// AddServiceAccount lets the key pair whose public half is pub sign token requests as email.
func (s *Server) AddServiceAccount(email string, pub *rsa.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.serviceAccounts == nil {
		s.serviceAccounts = map[string]*rsa.PublicKey{}
	}
	s.serviceAccounts[email] = pub
}

// IssuedTokens are the access tokens the token endpoint has handed out, for tests that look for leaks.
func (s *Server) IssuedTokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.issued))
	for t := range s.issued {
		out = append(out, t)
	}
	return out
}

// serveToken answers the JWT-bearer grant (RFC 7523) with Google's response and error shapes.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	oauthError := func(code, desc string) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest) // Google answers every refused grant with 400
		_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
	}
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		oauthError("invalid_request", "Invalid request.")
		return
	}
	if r.PostForm.Get("grant_type") != jwtBearer {
		oauthError("unsupported_grant_type", "Invalid grant_type: "+r.PostForm.Get("grant_type"))
		return
	}
	parts := strings.Split(r.PostForm.Get("assertion"), ".")
	if len(parts) != 3 {
		oauthError("invalid_grant", "Invalid JWT.")
		return
	}
	var claims struct {
		Iss string `json:"iss"`
		Exp int64  `json:"exp"`
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(payload, &claims) != nil {
		oauthError("invalid_grant", "Invalid JWT.")
		return
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	s.mu.Lock()
	pub := s.serviceAccounts[claims.Iss]
	s.mu.Unlock()
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err != nil || pub == nil || rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig) != nil {
		oauthError("invalid_grant", "Invalid JWT Signature.")
		return
	}
	if claims.Exp < s.opts.Now().Unix() {
		oauthError("invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values and use a clock with skew to account for clock differences between systems.") // fastlane/fastlane#14972
		return
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	token := "ya29.emu-" + hex.EncodeToString(b)
	s.mu.Lock()
	if s.issued == nil {
		s.issued = map[string]time.Time{}
	}
	s.issued[token] = s.opts.Now().Add(time.Hour)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": token, "expires_in": 3599, "token_type": "Bearer"})
}
