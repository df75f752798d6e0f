package kube

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
)

// RetryFor bounds how long Retry keeps trying a call that fails for a passing reason.
const RetryFor = 2 * time.Minute

// Transient reports errors that pass by themselves: the API server restarting or overloaded, or an admission webhook
// (Kueue's, right after Kueue starts) not answering yet. The provider's writes are server-side applies, deletes and
// creates that adopt what an earlier attempt made, so repeating them is safe.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if WebhookNotReady(err) {
		return true
	}
	// A name that does not resolve is a wrong host, not a passing fault: retrying it for minutes hides the typo.
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsTimeout || dns.IsTemporary
	}
	if apierrors.IsServiceUnavailable(err) || apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTimeout(err) {
		return true
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection refused") || strings.Contains(s, "http2: server sent GOAWAY") ||
		strings.Contains(s, "the server is currently unable to handle the request")
}

// WebhookNotReady reports an admission webhook that could not be called.
func WebhookNotReady(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "failed calling webhook") || strings.Contains(s, "no endpoints available for service") ||
		strings.Contains(s, "connection refused") && strings.Contains(s, "webhook")
}

// retryBackoff doubles from 200 ms to 3 s, then stays there.
var retryBackoff = wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Cap: 3 * time.Second, Steps: 5}

// Retry calls call until it succeeds, fails for a reason that is not Transient, RetryFor has passed, or ctx ends. It
// returns the call's last error, joined with ctx's when ctx ended.
func Retry(ctx context.Context, call func() error) error {
	rctx, cancel := context.WithTimeout(ctx, RetryFor)
	defer cancel()
	var last error
	err := retryBackoff.DelayFunc().Until(rctx, true, false, func(context.Context) (bool, error) {
		last = call()
		if last != nil && Transient(last) {
			return false, nil
		}
		return true, nil
	})
	switch {
	case err == nil || last == nil:
		return last
	case ctx.Err() != nil:
		return errors.Join(last, ctx.Err())
	default:
		return last // RetryFor has passed
	}
}

// WebhookDenied reports a write that an admission webhook (Kueue's, KubeRay's) refused: the object is invalid, which
// no retry or permission changes. The API server sends such refusals as 403 or 400, so they must be told from RBAC.
func WebhookDenied(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "admission webhook") && strings.Contains(s, "denied the request")
}
