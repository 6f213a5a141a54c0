module github.com/vkcompact/vkcompact

go 1.26

require (
	github.com/goki/vulkan v1.0.8
	github.com/vulkan-go/vulkan v0.0.0-20221209234627-c0a353ae26c8
)
