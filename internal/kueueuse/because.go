package kueueuse

// Because is a condition's message as the reason of a sentence: " (msg)", nothing when there is none.
func Because(msg string) string {
	if msg == "" {
		return ""
	}
	return " (" + msg + ")"
}
