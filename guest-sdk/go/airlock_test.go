package airlock

import (
	"errors"
	"testing"
)

func TestOutsideWasm(t *testing.T) {
	if err := Call("x", nil, nil); !errors.Is(err, ErrNoHost) {
		t.Fatalf("Call: got %v, want ErrNoHost", err)
	}
	if _, err := InputBytes(); !errors.Is(err, ErrNoHost) {
		t.Fatalf("InputBytes: got %v", err)
	}
	if err := Output(1); !errors.Is(err, ErrNoHost) {
		t.Fatalf("Output: got %v", err)
	}
}

func TestToolErrorText(t *testing.T) {
	tests := []struct {
		e    ToolError
		want string
	}{
		{ToolError{Tool: "a", Status: "denied", Reason: "approval_denied", Message: "no"}, "airlock: tool a: denied (approval_denied): no"},
		{ToolError{Tool: "b", Status: "error"}, "airlock: tool b: error"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
