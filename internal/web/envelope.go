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
