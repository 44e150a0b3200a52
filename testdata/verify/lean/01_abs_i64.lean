-- caps: UNCHECKED: written by caps emit-lean-obligations from module examples.abs_i64.
-- Every theorem below is an obligation, not a proof: it ends in sorry
-- until someone proves it, and caps verify-lean reports it open until
-- Lean accepts the file with no sorry, admit or axiom left in it.
-- Source: examples/01_abs_i64.caps; obligation ids are those of caps verify-report.

namespace examples_abs_i64

/-- Wrap-around: x brought into [lo, lo + m) (Int's % is the Euclidean
remainder, never negative for m > 0). -/
def capsWrap (m lo x : Int) : Int := (x - lo) % m + lo

def capsWrapI32 (x : Int) : Int := capsWrap 4294967296 (-2147483648) x
def capsWrapI64 (x : Int) : Int := capsWrap 18446744073709551616 (-9223372036854775808) x
def capsWrapU32 (x : Int) : Int := capsWrap 4294967296 0 x
def capsWrapU64 (x : Int) : Int := capsWrap 18446744073709551616 0 x

/-- Division truncating toward zero, from Nat division. -/
def capsTDiv (a b : Int) : Int :=
  let q : Int := ((a.natAbs / b.natAbs : Nat) : Int)
  if decide (a < 0) == decide (b < 0) then q else -q

/-- The remainder of capsTDiv: it takes the dividend's sign. -/
def capsTMod (a b : Int) : Int := a - b * capsTDiv a b

/- Sites:
  0: requires-failed in abs_i64 at line 23:15
  1: ensures-failed in abs_i64 at line 24:14
-/

/-- abs_i64, compiled from Capsulang. -/
def abs_i64 (x : Int) : Except String Int :=
  if !((decide (x > (-9223372036854775808 : Int)))) then Except.error "requires-failed at site 0 in abs_i64" else
  let l1 := (if (decide (x < (0 : Int))) then (capsWrapI64 ((0 : Int) - x)) else x)
  if !((decide (l1 ≥ (0 : Int)))) then Except.error "ensures-failed at site 1 in abs_i64" else
  pure l1

/-- The ranges of the integer types: a value of the type is an Int in it. -/
def capsInI32 (x : Int) : Prop := -2147483648 ≤ x ∧ x < 2147483648
def capsInI64 (x : Int) : Prop := -9223372036854775808 ≤ x ∧ x < 9223372036854775808
def capsInU32 (x : Int) : Prop := 0 ≤ x ∧ x < 4294967296
def capsInU64 (x : Int) : Prop := 0 ≤ x ∧ x < 18446744073709551616

/-! Obligations of abs_i64 -/

/-- The requires of abs_i64: true when every clause holds. -/
def abs_i64.pre (x : Int) : Except String Bool :=
  if !((decide (x > (-9223372036854775808 : Int)))) then pure false else
  pure true

/-- The body of abs_i64, without its contracts. -/
def abs_i64.body (x : Int) : Except String Int :=
  pure (if (decide (x < (0 : Int))) then (capsWrapI64 ((0 : Int) - x)) else x)

/-- The ensures 0 of abs_i64, of the inputs and the result. -/
def abs_i64.post_0 (x : Int) (l1 : Int) : Except String Bool :=
  pure (decide (l1 ≥ (0 : Int)))

/-- examples.abs_i64/abs_i64/ensures/0
    at examples/01_abs_i64.caps:24:14-24:27: (>= result 0) -/
theorem abs_i64.ensures_0 :
    ∀ (x : Int),
    capsInI64 x → abs_i64.pre x = Except.ok true →
    ∀ (result : Int), abs_i64.body x = Except.ok result →
    abs_i64.post_0 x result = Except.ok true := by
  sorry

/-- examples.abs_i64/abs_i64/no-failure
    at examples/01_abs_i64.caps:25:11-25:33: (if (< x 0) (- 0 x) x) -/
theorem abs_i64.no_failure :
    ∀ (x : Int),
    capsInI64 x → abs_i64.pre x = Except.ok true →
    ∃ (result : Int), abs_i64.body x = Except.ok result := by
  sorry

/-- examples.abs_i64/abs_i64/example/0
    at examples/01_abs_i64.caps:26:5-26:29: (example (abs_i64 -7) 7) -/
theorem abs_i64.example_0 :
    examples_abs_i64.abs_i64 (-7 : Int) = Except.ok (7 : Int) := by
  sorry

/-- examples.abs_i64/abs_i64/example/1
    at examples/01_abs_i64.caps:27:5-27:28: (example (abs_i64 0) 0) -/
theorem abs_i64.example_1 :
    examples_abs_i64.abs_i64 (0 : Int) = Except.ok (0 : Int) := by
  sorry

/-- examples.abs_i64/abs_i64/example/2
    at examples/01_abs_i64.caps:28:5-28:30: (example (abs_i64 42) 42) -/
theorem abs_i64.example_2 :
    examples_abs_i64.abs_i64 (42 : Int) = Except.ok (42 : Int) := by
  sorry

/-- examples.abs_i64/abs_i64/example/3
    at examples/01_abs_i64.caps:29:5-29:65: (example (abs_i64 -9223372036854775807) 9223372036854775807) -/
theorem abs_i64.example_3 :
    examples_abs_i64.abs_i64 (-9223372036854775807 : Int) = Except.ok (9223372036854775807 : Int) := by
  sorry

end examples_abs_i64
