package vk

// PipelineStage is a VkPipelineStageFlags value.
type PipelineStage uint32

// Access is a VkAccessFlags value.
type Access uint32

// Pipeline stages used by vkcompact and by callers' barriers.
const (
	StageTopOfPipe     PipelineStage = 0x00000001
	StageDrawIndirect  PipelineStage = 0x00000002 // also reads VkDispatchIndirectCommand
	StageVertexInput   PipelineStage = 0x00000004
	StageComputeShader PipelineStage = 0x00000800
	StageTransfer      PipelineStage = 0x00001000
	StageBottomOfPipe  PipelineStage = 0x00002000
	StageHost          PipelineStage = 0x00004000
	StageAllCommands   PipelineStage = 0x00010000
)

// Access masks used by vkcompact and by callers' barriers.
const (
	AccessIndirectCommandRead Access = 0x00000001
	AccessShaderRead          Access = 0x00000020
	AccessShaderWrite         Access = 0x00000040
	AccessTransferRead        Access = 0x00000800
	AccessTransferWrite       Access = 0x00001000
	AccessHostRead            Access = 0x00002000
	AccessHostWrite           Access = 0x00004000
	AccessMemoryRead          Access = 0x00008000
	AccessMemoryWrite         Access = 0x00010000
)
