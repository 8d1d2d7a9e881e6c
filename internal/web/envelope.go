// Package web holds the HTTP plumbing shared by every feature: the Huma API,
// the ApiResponse envelope, the one mapping from errors to HTTP, middlewares
// and paging. It knows nothing of the features.
package web

// Envelope is the ApiResponse of SPEC.md.
type Envelope[T any] struct {
	Success bool `json:"success"`
	Data    T    `json:"data"`
	Meta    any  `json:"meta,omitempty"`
}

// Out is a handler result: an envelope with an optional status (default 200).
type Out[T any] struct {
	Status int
	Body   Envelope[T]
}

// OK wraps data in a successful envelope.
func OK[T any](data T) *Out[T] {
	return &Out[T]{Status: 200, Body: Envelope[T]{Success: true, Data: data}}
}

// Created answers 201 with data.
func Created[T any](data T) *Out[T] {
	return &Out[T]{Status: 201, Body: Envelope[T]{Success: true, Data: data}}
}

// Accepted answers 202 with data.
func Accepted[T any](data T) *Out[T] {
	return &Out[T]{Status: 202, Body: Envelope[T]{Success: true, Data: data}}
}

// Paged answers data with paging meta.
func Paged[T any](data T, meta any) *Out[T] {
	return &Out[T]{Status: 200, Body: Envelope[T]{Success: true, Data: data, Meta: meta}}
}

// Empty answers 200 with data null (deletes and other operations without a result).
func Empty() *Out[any] { return &Out[any]{Status: 200, Body: Envelope[any]{Success: true}} }

// Reply turns a service result into a 200 answer: web.Reply(h.svc.Get(ctx, id)).
func Reply[T any](data T, err error) (*Out[T], error) {
	if err != nil {
		return nil, err
	}
	return OK(data), nil
}

// ReplyCreated is Reply with 201.
func ReplyCreated[T any](data T, err error) (*Out[T], error) {
	if err != nil {
		return nil, err
	}
	return Created(data), nil
}

// ReplyAccepted is Reply with 202.
func ReplyAccepted[T any](data T, err error) (*Out[T], error) {
	if err != nil {
		return nil, err
	}
	return Accepted(data), nil
}
