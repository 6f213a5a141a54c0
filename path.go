package vkcompact

// Path chooses the algorithm of an operation: compact.Options.Path,
// scan.Options.Path and radix.Options.Path take it.
type Path uint8

const (
	// PathAuto is each operation's default: a compaction or split, and an
	// integer prefix sum, take the single pass on GPUs wherever it applies
	// (it measured faster there) and the three phases otherwise and on
	// CPU devices; a sort takes the three phases everywhere.
	PathAuto Path = iota
	// PathThreePhase is Billeter's three phases (count, scan, move; for a
	// prefix sum reduce, scan, apply): the input is read twice, and every
	// request is taken.
	PathThreePhase
	// PathSinglePass reads the input once per pass: a chained scan over
	// tiles with decoupled look-back and decoupled fallback, so no device
	// needs forward-progress guarantees. Each operation says where it
	// applies (out of place, up to MaxSinglePassElements elements for a
	// compaction, ...); its NewPlan returns ErrInvalid, naming the reason, when it is
	// forced where it does not apply.
	PathSinglePass
)

// String names the path.
func (p Path) String() string {
	switch p {
	case PathThreePhase:
		return "three-phase"
	case PathSinglePass:
		return "single-pass"
	}
	return "auto"
}

// MaxSinglePassElements bounds a compaction's and split's single pass: a
// tile's status packs its state and count into one 32-bit word, an
// inclusive prefix P as 2^30 + 2^20 + P (shaders/compact/select_onepass.glsl),
// so P, and n, stay below 3 * 2^30 - 2^20 (past CUB's int counts, 2^31 -
// 1). The prefix sum's single pass holds 32-bit sums and has no such
// bound; radix sort's has its own.
const MaxSinglePassElements = 3<<30 - 1<<20 - 1

// MaxLoadsPerLane bounds compact.Options.LoadsPerLane and
// scan.Options.LoadsPerLane: the kernels keep each load
// in its own register, unrolled by hand.
const MaxLoadsPerLane = 4
