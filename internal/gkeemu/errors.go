package gkeemu

import (
	"encoding/json"
	"fmt"
	"net/http"

	"google.golang.org/grpc/codes"
)

// apiError is an error in the shape GKE's REST front end returns: an HTTP status, the canonical gRPC status name and a
// message. gcloud prints "code=<http>, message=<message>" or "<STATUS>: <message>" from it; the Go client surfaces it as
// a *googleapi.Error.
type apiError struct {
	httpCode int
	code     codes.Code
	message  string
	// info is the google.rpc.ErrorInfo GKE adds to some errors, nil for none.
	info *errorInfo
}

type errorInfo struct{ reason, domain string }

func (e *apiError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.httpCode, statusName(e.code), e.message)
}

func errorf(code codes.Code, format string, args ...any) *apiError {
	return &apiError{httpCode: httpStatus(code), code: code, message: fmt.Sprintf(format, args...)}
}

func notFound(name string) *apiError { return errorf(codes.NotFound, "Not found: %s.", name) }

func invalid(format string, args ...any) *apiError {
	return errorf(codes.InvalidArgument, format, args...)
}

// httpStatus maps a canonical code to the HTTP status Google's front ends use for it.
func httpStatus(c codes.Code) int {
	switch c {
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		return http.StatusBadRequest
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.NotFound:
		return http.StatusNotFound
	case codes.AlreadyExists, codes.Aborted:
		return http.StatusConflict
	case codes.ResourceExhausted:
		return http.StatusTooManyRequests
	case codes.Unimplemented:
		return http.StatusNotImplemented
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	default:
		return http.StatusInternalServerError
	}
}

// codeForHTTP is the reverse mapping, for faults configured by HTTP status.
func codeForHTTP(status int) codes.Code {
	switch status {
	case http.StatusBadRequest:
		return codes.InvalidArgument
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusForbidden:
		return codes.PermissionDenied
	case http.StatusNotFound:
		return codes.NotFound
	case http.StatusConflict:
		return codes.AlreadyExists
	case http.StatusTooManyRequests:
		return codes.ResourceExhausted
	case http.StatusServiceUnavailable:
		return codes.Unavailable
	case http.StatusGatewayTimeout:
		return codes.DeadlineExceeded
	default:
		return codes.Internal
	}
}

// statusName is the upper-snake name Google APIs put in error.status (codes.Code.String is CamelCase).
func statusName(c codes.Code) string {
	names := map[codes.Code]string{
		codes.OK: "OK", codes.Canceled: "CANCELLED", codes.Unknown: "UNKNOWN", codes.InvalidArgument: "INVALID_ARGUMENT",
		codes.DeadlineExceeded: "DEADLINE_EXCEEDED", codes.NotFound: "NOT_FOUND", codes.AlreadyExists: "ALREADY_EXISTS",
		codes.PermissionDenied: "PERMISSION_DENIED", codes.ResourceExhausted: "RESOURCE_EXHAUSTED",
		codes.FailedPrecondition: "FAILED_PRECONDITION", codes.Aborted: "ABORTED", codes.OutOfRange: "OUT_OF_RANGE",
		codes.Unimplemented: "UNIMPLEMENTED", codes.Internal: "INTERNAL", codes.Unavailable: "UNAVAILABLE",
		codes.DataLoss: "DATA_LOSS", codes.Unauthenticated: "UNAUTHENTICATED",
	}
	return names[c]
}

func writeError(w http.ResponseWriter, e *apiError) {
	inner := map[string]any{
		"code":    e.httpCode,
		"message": e.message,
		"status":  statusName(e.code),
		"errors":  []map[string]string{{"message": e.message, "domain": "global", "reason": reason(e.code)}},
	}
	if e.info != nil {
		inner["details"] = []map[string]any{{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": e.info.reason, "domain": e.info.domain}}
	}
	body := map[string]any{"error": inner}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(e.httpCode)
	_ = json.NewEncoder(w).Encode(body)
}

// reason is the legacy "errors[].reason" that older clients (and gcloud's apitools) still read.
func reason(c codes.Code) string {
	switch c {
	case codes.InvalidArgument:
		return "badRequest"
	case codes.FailedPrecondition:
		return "failedPrecondition"
	case codes.NotFound:
		return "notFound"
	case codes.AlreadyExists:
		return "alreadyExists"
	case codes.ResourceExhausted:
		return "rateLimitExceeded"
	case codes.Unauthenticated:
		return "authError"
	case codes.Unavailable:
		return "backendError"
	default:
		return "backendError"
	}
}
