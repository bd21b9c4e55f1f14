package validation

import (
	"regexp"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// reasonPattern is what error_details.proto asks of a reason.
var reasonPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]+[A-Z0-9]$`)

func TestReason(t *testing.T) {
	for rule, want := range map[string]string{
		"string.min_len": "STRING_MIN_LEN",
		"check.range":    "CHECK_RANGE",
		"required":       "REQUIRED",
		"a-b..c_":        "A_B_C",
		"":               "RULE",
		"x":              "RULE_X",
		"ab":             "RULE_AB",
		"1abc":           "RULE_1ABC",
		"_a":             "RULE_A",
		"é":              "RULE",
	} {
		if got := Reason(rule); got != want {
			t.Errorf("Reason(%q) = %q, want %q", rule, got, want)
		}
	}
}

// FuzzReason: every rule id makes a reason error_details.proto accepts.
func FuzzReason(f *testing.F) {
	for _, s := range []string{"string.min_len", "", "x", "__", "9", "é.ß", "a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rule string) {
		if got := Reason(rule); !reasonPattern.MatchString(got) {
			t.Fatalf("Reason(%q) = %q", rule, got)
		}
	})
}

func TestStatus(t *testing.T) {
	e := &Error{
		Violations: []Violation{{Rule: "check.range", Message: "low must not exceed high"}, {Rule: "string.min_len", Message: "too short"}},
		Details:    []proto.Message{&errdetails.ErrorInfo{Reason: "X"}},
	}
	err := Status(e, []Named{{Violation: &e.Violations[0]}, {Violation: &e.Violations[1], Field: "name"}})
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument || st.Message() != "invalid request: low must not exceed high; name: too short" {
		t.Fatalf("got %v", st)
	}
	details := st.Details()
	br, ok := details[0].(*errdetails.BadRequest)
	if len(details) != 2 || !ok {
		t.Fatalf("details %v", details)
	}
	want := &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
		{Field: "", Description: "low must not exceed high", Reason: "CHECK_RANGE"},
		{Field: "name", Description: "too short", Reason: "STRING_MIN_LEN"},
	}}
	if !proto.Equal(br, want) {
		t.Errorf("BadRequest %v, want %v", br, want)
	}
}
