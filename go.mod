module github.com/vkcompact/vkcompact

go 1.26

require github.com/goki/vulkan v1.0.8 // indirect
