package vk

import (
	"errors"
	"fmt"
)

// Errors to test for with errors.Is. A failing Vulkan call returns an *Error
// that matches the value for its VkResult.
var (
	// ErrDeviceLost reports VK_ERROR_DEVICE_LOST. Once a context has seen it,
	// every later call on that context returns it too.
	ErrDeviceLost = errors.New("vk: device lost")
	// ErrOutOfDeviceMemory reports VK_ERROR_OUT_OF_DEVICE_MEMORY, or a request
	// larger than any suitable memory heap.
	ErrOutOfDeviceMemory = errors.New("vk: out of device memory")
	// ErrOutOfHostMemory reports VK_ERROR_OUT_OF_HOST_MEMORY.
	ErrOutOfHostMemory = errors.New("vk: out of host memory")
	// ErrTimeout reports a wait that did not finish within its deadline. The
	// work stays in flight; the context remains usable.
	ErrTimeout = errors.New("vk: timed out waiting for the GPU")
	// ErrReleased reports use of a context or buffer after Release.
	ErrReleased = errors.New("vk: used after Release")
	// ErrUnsupported reports a device that lacks something vkcompact needs.
	ErrUnsupported = errors.New("vk: device unsupported")
	// ErrNoDevice reports that no Vulkan device matches the request.
	ErrNoDevice = errors.New("vk: no such Vulkan device")
	// ErrInvalid reports an invalid argument: a size, offset or length that
	// does not fit.
	ErrInvalid = errors.New("vk: invalid argument")
)

// VkResult codes used by this package.
const (
	resultSuccess             = 0
	resultNotReady            = 1
	resultTimeout             = 2
	resultOutOfHostMemory     = -1
	resultOutOfDeviceMemory   = -2
	resultDeviceLost          = -4
	resultFragmentedPool      = -12
	resultOutOfPoolMemory     = -1000069000
	resultValidationFailedEXT = -1000011001
)

var resultNames = map[int32]string{
	0: "VK_SUCCESS", 1: "VK_NOT_READY", 2: "VK_TIMEOUT", 3: "VK_EVENT_SET", 4: "VK_EVENT_RESET", 5: "VK_INCOMPLETE",
	-1: "VK_ERROR_OUT_OF_HOST_MEMORY", -2: "VK_ERROR_OUT_OF_DEVICE_MEMORY", -3: "VK_ERROR_INITIALIZATION_FAILED",
	-4: "VK_ERROR_DEVICE_LOST", -5: "VK_ERROR_MEMORY_MAP_FAILED", -6: "VK_ERROR_LAYER_NOT_PRESENT",
	-7: "VK_ERROR_EXTENSION_NOT_PRESENT", -8: "VK_ERROR_FEATURE_NOT_PRESENT", -9: "VK_ERROR_INCOMPATIBLE_DRIVER",
	-10: "VK_ERROR_TOO_MANY_OBJECTS", -11: "VK_ERROR_FORMAT_NOT_SUPPORTED", -12: "VK_ERROR_FRAGMENTED_POOL",
	-13: "VK_ERROR_UNKNOWN", -1000069000: "VK_ERROR_OUT_OF_POOL_MEMORY", -1000072003: "VK_ERROR_INVALID_EXTERNAL_HANDLE",
	-1000161000: "VK_ERROR_FRAGMENTATION", -1000257000: "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS",
	1000297000: "VK_PIPELINE_COMPILE_REQUIRED", resultValidationFailedEXT: "VK_ERROR_VALIDATION_FAILED_EXT",
}

// Error is a failed Vulkan call: the function's name and the VkResult it
// returned.
type Error struct {
	Call   string // the Vulkan function, e.g. "vkCreateBuffer"
	Result int32  // the VkResult
}

func newError(call string, r int32) *Error { return &Error{Call: call, Result: r} }

// Error formats as "vk: vkCreateBuffer: VK_ERROR_OUT_OF_DEVICE_MEMORY".
func (e *Error) Error() string {
	name, ok := resultNames[e.Result]
	if !ok {
		name = fmt.Sprintf("VkResult(%d)", e.Result)
	}
	return "vk: " + e.Call + ": " + name
}

// Is matches the package's error values: ErrDeviceLost, ErrOutOfDeviceMemory,
// ErrOutOfHostMemory and ErrTimeout.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrDeviceLost:
		return e.Result == resultDeviceLost
	case ErrOutOfDeviceMemory:
		return e.Result == resultOutOfDeviceMemory
	case ErrOutOfHostMemory:
		return e.Result == resultOutOfHostMemory
	case ErrTimeout:
		return e.Result == resultTimeout
	}
	return false
}

// check turns a VkResult into nil or an *Error naming call.
func check(call string, r int32) error {
	if r == resultSuccess {
		return nil
	}
	return newError(call, r)
}

// kindError is an error of one of the kinds above: its message reads
// context first and cause last, as Go's errors do ("compact: source: nil
// buffer"), and errors.Is matches both its kind and whatever its message
// wraps.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind} }

// errorf formats an error of kind (fmt.Errorf: %w wraps).
func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, err: fmt.Errorf(format, args...)}
}

// invalidf formats an error matching ErrInvalid, as fmt.Errorf does (%w
// wraps): the error the package returns for an argument that does not
// fit, its message naming the problem. The packages above vk make theirs
// with internal/errs.Invalidf.
func invalidf(format string, args ...any) error { return errorf(ErrInvalid, format, args...) }

// released is the error of an object used after its Release.
func released(what string) error { return errorf(ErrReleased, "%s used after Release", what) }
