//go:build !race

package acl_test

// raceDetector reports whether the tests run under the race detector.
const raceDetector = false
