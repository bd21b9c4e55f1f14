package validateprotorest

import (
	"errors"
	"fmt"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/protorest/protorest"
)

// Validator is a protorest.Validator that checks protovalidate's rules.
type Validator struct {
	opts []protovalidate.ValidatorOption
}

var _ protorest.Validator = (*Validator)(nil)

// New returns a Validator whose protovalidate validators take opts (such
// as protovalidate.WithFailFast, or WithExtensionTypeResolver for
// predefined rules of a program's own).
func New(opts ...protovalidate.ValidatorOption) *Validator {
	return &Validator{opts: opts}
}

// ForMethod returns the check of md's request messages: nil when the
// request message carries no rules (HasRules). The rules are compiled
// now, in a protovalidate validator of md's own (so that a backend's
// reloaded descriptors do not accumulate in a shared cache); the error
// is a rule that cannot be compiled.
func (v *Validator) ForMethod(md protoreflect.MethodDescriptor) (func(proto.Message) error, error) {
	in := md.Input()
	if !HasRules(in) {
		return nil, nil
	}
	held := messages(in)
	opts := append([]protovalidate.ValidatorOption{protovalidate.WithMessageDescriptors(held...)}, v.opts...)
	pv, err := protovalidate.New(opts...)
	if err != nil {
		return nil, err
	}
	// An empty message of each type reaches its rules' compiled form:
	// the validator reports a rule that did not compile on any message,
	// and a type held only in a list or a map is compiled here too, not
	// at its first request.
	for _, m := range held {
		if err := pv.Validate(dynamicpb.NewMessage(m)); err != nil {
			var ce *protovalidate.CompilationError
			if errors.As(err, &ce) {
				return nil, fmt.Errorf("%s: %w", m.FullName(), err)
			}
		}
	}
	return (&check{pv: pv, input: in}).run, nil
}

// check is one method's check.
type check struct {
	pv    protovalidate.Validator
	input protoreflect.MessageDescriptor
}

func (c *check) run(m proto.Message) error {
	err := c.pv.Validate(m)
	if err == nil {
		return nil
	}
	var ve *protovalidate.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return violations(c.input, ve)
}
