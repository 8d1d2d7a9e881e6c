// Package web holds the HTTP plumbing shared by every feature: the Huma API,
// the ApiResponse envelope, the one mapping from errors to HTTP, middlewares
// and paging. It knows nothing of the features.
package web

// Envelope is the ApiResponse of SPEC.md for answers without meta.
type Envelope[T any] struct {
	Success bool `json:"success"`
	Data    T    `json:"data"`
}

// PagedEnvelope is the ApiResponse of a paged listing: meta (M, a PageMeta
// or a type that embeds its fields) is always present.
type PagedEnvelope[T, M any] struct {
	Success bool `json:"success"`
	Data    T    `json:"data"`
	Meta    M    `json:"meta"`
}

// MaybeEnvelope is the ApiResponse of an operation whose data may be null,
// where finding nothing is an answer and not an error (an empty queue). Its
// data is documented as nullable; in Envelope and PagedEnvelope a pointer
// data is not, since a success always carries the resource.
type MaybeEnvelope[T any] struct {
	Success bool `json:"success"`
	Data    T    `json:"data"`
}

// MaybeOut is a handler result whose data may be null.
type MaybeOut[T any] struct {
	Status int
	Body   MaybeEnvelope[T]
}

// ReplyMaybe is Reply for data that may be nil (answered as data null).
func ReplyMaybe[T any](data T, err error) (*MaybeOut[T], error) {
	if err != nil {
		return nil, err
	}
	return &MaybeOut[T]{Status: 200, Body: MaybeEnvelope[T]{Success: true, Data: data}}, nil
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

// PagedOut is the result of a paged listing: data with its meta.
type PagedOut[T, M any] struct {
	Status int
	Body   PagedEnvelope[T, M]
}

// Paged answers 200 with data and its paging meta.
func Paged[T, M any](data T, meta M) *PagedOut[T, M] {
	return &PagedOut[T, M]{Status: 200, Body: PagedEnvelope[T, M]{Success: true, Data: data, Meta: meta}}
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
