package spvspec

// SPIR-V opcodes this pass reads, writes or folds, by their names in the
// SPIR-V specification (op + the name after "Op").
const (
	opNop                   = 0
	opUndef                 = 1
	opSource                = 3
	opSourceExtension       = 4
	opName                  = 5
	opMemberName            = 6
	opLine                  = 8
	opExtension             = 10
	opMemoryModel           = 14
	opEntryPoint            = 15
	opExecutionMode         = 16
	opCapability            = 17
	opTypeBool              = 20
	opTypeInt               = 21
	opConstantTrue          = 41
	opConstantFalse         = 42
	opConstant              = 43
	opConstantComposite     = 44
	opSpecConstantTrue      = 48
	opSpecConstantFalse     = 49
	opSpecConstant          = 50
	opSpecConstantComposite = 51
	opSpecConstantOp        = 52
	opFunction              = 54
	opFunctionEnd           = 56
	opStore                 = 62
	opCopyMemory            = 63
	opCopyMemorySized       = 64
	opDecorate              = 71
	opMemberDecorate        = 72
	opDecorationGroup       = 73
	opGroupDecorate         = 74
	opGroupMemberDecorate   = 75
	opCompositeExtract      = 81
	opImageWrite            = 99
	opUConvert              = 113
	opSConvert              = 114
	opSNegate               = 126
	opIAdd                  = 128
	opISub                  = 130
	opIMul                  = 132
	opUDiv                  = 134
	opSDiv                  = 135
	opUMod                  = 137
	opSRem                  = 138
	opLogicalEqual          = 164
	opLogicalNotEqual       = 165
	opLogicalOr             = 166
	opLogicalAnd            = 167
	opLogicalNot            = 168
	opSelect                = 169
	opIEqual                = 170
	opINotEqual             = 171
	opUGreaterThan          = 172
	opSGreaterThan          = 173
	opUGreaterThanEqual     = 174
	opSGreaterThanEqual     = 175
	opULessThan             = 176
	opSLessThan             = 177
	opULessThanEqual        = 178
	opSLessThanEqual        = 179
	opShiftRightLogical     = 194
	opShiftRightArithmetic  = 195
	opShiftLeftLogical      = 196
	opBitwiseOr             = 197
	opBitwiseXor            = 198
	opBitwiseAnd            = 199
	opNot                   = 200
	opControlBarrier        = 224
	opMemoryBarrier         = 225
	opAtomicStore           = 228
	opPhi                   = 245
	opLoopMerge             = 246
	opSelectionMerge        = 247
	opLabel                 = 248
	opBranch                = 249
	opBranchConditional     = 250
	opSwitch                = 251
	opKill                  = 252
	opReturn                = 253
	opReturnValue           = 254
	opUnreachable           = 255
	opNoLine                = 317
	opModuleProcessed       = 330
	opExecutionModeID       = 331
	opDecorateID            = 332
	opTerminateInvocation   = 4416
	opDecorateString        = 5632
	opMemberDecorateString  = 5633
)

// Operands and the module header.
const (
	decorationSpecID = 1          // Decoration SpecId
	loopUnroll       = 1          // LoopControl Unroll, a bit of OpLoopMerge's third operand
	magic            = 0x07230203 // a SPIR-V module's first word
	headerWords      = 5          // magic, version, generator, id bound, schema
	boundWord        = 3          // the header word holding the id bound
)

// noResult lists the opcodes that may stand in a block and define no
// result id (the others there define one at word 2, OpLabel at word 1).
var noResult = map[uint32]bool{
	opNop: true, opLine: true, opNoLine: true, opStore: true, opCopyMemory: true, opCopyMemorySized: true,
	opControlBarrier: true, opMemoryBarrier: true, opAtomicStore: true, opLoopMerge: true, opSelectionMerge: true,
	opBranch: true, opBranchConditional: true, opSwitch: true, opKill: true, opReturn: true, opReturnValue: true,
	opUnreachable: true, opTerminateInvocation: true, opImageWrite: true,
}

// annotation lists the global instructions taken to define no id: the
// debug ones (OpSource, OpSourceExtension, OpName, OpMemberName,
// OpModuleProcessed), OpExtension, OpMemoryModel, OpEntryPoint,
// OpExecutionMode(Id), OpCapability and the decorations.
var annotation = map[uint32]bool{
	opSource: true, opSourceExtension: true, opName: true, opMemberName: true, opModuleProcessed: true,
	opExtension: true, opMemoryModel: true, opEntryPoint: true, opExecutionMode: true, opExecutionModeID: true,
	opCapability: true, opDecorate: true, opMemberDecorate: true, opDecorationGroup: true, opGroupDecorate: true,
	opGroupMemberDecorate: true, opDecorateID: true, opDecorateString: true, opMemberDecorateString: true,
}

// isTerminator reports whether op ends a block.
func isTerminator(op uint32) bool {
	switch op {
	case opBranch, opBranchConditional, opSwitch, opKill, opReturn, opReturnValue, opUnreachable, opTerminateInvocation:
		return true
	}
	return false
}
