package blob

import (
	"context"
	"errors"
	"fmt"

	"coreportal/internal/fault"
)

// Unreachable marks an error of the store as 503 UNAVAILABLE (the store did
// not answer: down, timed out, refused). ErrNotFound, a cancelled request,
// a fault already decided and nil pass through unchanged.
func Unreachable(err error) error {
	if err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, context.Canceled) {
		return err
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	return fmt.Errorf("%w: %w", fault.Unavailable("the file store cannot be reached; retry later"), err)
}
