package rayjob

// Pieces of the messages that diagnostics and status attributes are built from.

func orNone(s string) string {
	if s == "" {
		return "not started"
	}
	return s
}
