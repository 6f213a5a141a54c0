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
	// applies (below MaxSinglePassElements elements, within one binding,
	// ...); its NewPlan returns ErrInvalid, naming the reason, when it is
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

// MaxSinglePassElements bounds the single pass: a tile's status packs its
// flag and prefix into one 32-bit word, 30 bits for the prefix.
const MaxSinglePassElements = 1<<30 - 1

// MaxLoadsPerLane bounds compact.Options.LoadsPerLane and
// scan.Options.LoadsPerLane: the kernels keep each load
// in its own register, unrolled by hand.
const MaxLoadsPerLane = 4
