-- caps: UNCHECKED: written by caps emit-lean-obligations from module verify.contracts.
-- Every theorem below is an obligation, not a proof: it ends in sorry
-- until someone proves it, and caps verify-lean reports it open until
-- Lean accepts the file with no sorry, admit or axiom left in it.
-- Source: testdata/verify/contracts.caps; obligation ids are those of caps verify-report.

namespace verify_contracts

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
  0: ensures-failed in abs_wrong at line 14:14
  1: requires-failed in abs_right at line 21:15
  2: ensures-failed in abs_right at line 22:14
  3: division-by-zero in ratio at line 30:11
  5: ensures-failed in bump at line 42:14
  6: division-by-zero in gcd at line 64:33
  8: division-by-zero in half at line 78:11
-/

/- Not compiled (outside the subset; caps compile-plan says why):
  level_of: record Reading (records have no linear-memory ABI yet)
  level_of: Option values (no linear-memory ABI yet)
  rank: enum Level (enums have no stable layout yet)
  shout: Text values (no linear-memory ABI yet)
  shout: Text values (no linear-memory ABI yet)
-/

/-- abs_wrong, compiled from Capsulang. -/
def abs_wrong (x : Int) : Except String Int :=
  let l1 := (if (decide (x < (0 : Int))) then (capsWrapI64 ((0 : Int) - x)) else x)
  if !((decide (l1 ≥ (0 : Int)))) then Except.error "ensures-failed at site 0 in abs_wrong" else
  pure l1

/-- abs_right, compiled from Capsulang. -/
def abs_right (x : Int) : Except String Int :=
  if !((decide (x > (-9223372036854775808 : Int)))) then Except.error "requires-failed at site 1 in abs_right" else
  let l1 := (if (decide (x < (0 : Int))) then (capsWrapI64 ((0 : Int) - x)) else x)
  if !((decide (l1 ≥ (0 : Int)))) then Except.error "ensures-failed at site 2 in abs_right" else
  pure l1

/-- ratio, compiled from Capsulang. -/
def ratio (a : Int) (b : Int) : Except String Int :=
  if b == 0 then Except.error "division-by-zero at site 3 in ratio" else
  pure (capsWrapU32 (capsTDiv a b))

/-- twice_abs, compiled from Capsulang. -/
def twice_abs (x : Int) : Except String Int :=
  (verify_contracts.abs_right x) >>= fun t1 =>
  pure (capsWrapI64 ((2 : Int) * t1))

/-- bump, compiled from Capsulang. -/
def bump (n : Int) : Except String Int :=
  let l1 := (capsWrapU32 (n + (1 : Int)))
  if !((decide (l1 > n))) then Except.error "ensures-failed at site 5 in bump" else
  pure l1

/-- gcd, compiled from Capsulang. -/
partial def gcd (a : Int) (b : Int) : Except String Int :=
  (if (b == (0 : Int)) then (pure a) else (if b == 0 then Except.error "division-by-zero at site 6 in gcd" else
    (verify_contracts.gcd b (capsWrapU64 (capsTMod a b))) >>= fun t1 =>
    pure t1)) >>= fun t2 =>
  pure t2

/-- half, compiled from Capsulang. -/
def half (n : Int) : Except String Int :=
  pure (capsWrapU64 (capsTDiv n (2 : Int)))

/-- The ranges of the integer types: a value of the type is an Int in it. -/
def capsInI32 (x : Int) : Prop := -2147483648 ≤ x ∧ x < 2147483648
def capsInI64 (x : Int) : Prop := -9223372036854775808 ≤ x ∧ x < 9223372036854775808
def capsInU32 (x : Int) : Prop := 0 ≤ x ∧ x < 4294967296
def capsInU64 (x : Int) : Prop := 0 ≤ x ∧ x < 18446744073709551616

/-! Obligations of abs_wrong -/

/-- The requires of abs_wrong: true when every clause holds. -/
def abs_wrong.pre (x : Int) : Except String Bool :=
  pure true

/-- The body of abs_wrong, without its contracts. -/
def abs_wrong.body (x : Int) : Except String Int :=
  pure (if (decide (x < (0 : Int))) then (capsWrapI64 ((0 : Int) - x)) else x)

/-- The ensures 0 of abs_wrong, of the inputs and the result. -/
def abs_wrong.post_0 (x : Int) (l1 : Int) : Except String Bool :=
  pure (decide (l1 ≥ (0 : Int)))

/-- verify.contracts/abs_wrong/ensures/0
    at testdata/verify/contracts.caps:14:14-14:27: (>= result 0) -/
theorem abs_wrong.ensures_0 :
    ∀ (x : Int),
    capsInI64 x → abs_wrong.pre x = Except.ok true →
    ∀ (result : Int), abs_wrong.body x = Except.ok result →
    abs_wrong.post_0 x result = Except.ok true := by
  sorry

/-- verify.contracts/abs_wrong/no-failure
    at testdata/verify/contracts.caps:15:11-15:33: (if (< x 0) (- 0 x) x) -/
theorem abs_wrong.no_failure :
    ∀ (x : Int),
    capsInI64 x → abs_wrong.pre x = Except.ok true →
    ∃ (result : Int), abs_wrong.body x = Except.ok result := by
  sorry

/-! Obligations of abs_right -/

/-- The requires of abs_right: true when every clause holds. -/
def abs_right.pre (x : Int) : Except String Bool :=
  if !((decide (x > (-9223372036854775808 : Int)))) then pure false else
  pure true

/-- The body of abs_right, without its contracts. -/
def abs_right.body (x : Int) : Except String Int :=
  pure (if (decide (x < (0 : Int))) then (capsWrapI64 ((0 : Int) - x)) else x)

/-- The ensures 0 of abs_right, of the inputs and the result. -/
def abs_right.post_0 (x : Int) (l1 : Int) : Except String Bool :=
  pure (decide (l1 ≥ (0 : Int)))

/-- verify.contracts/abs_right/ensures/0
    at testdata/verify/contracts.caps:22:14-22:27: (>= result 0) -/
theorem abs_right.ensures_0 :
    ∀ (x : Int),
    capsInI64 x → abs_right.pre x = Except.ok true →
    ∀ (result : Int), abs_right.body x = Except.ok result →
    abs_right.post_0 x result = Except.ok true := by
  sorry

/-- verify.contracts/abs_right/no-failure
    at testdata/verify/contracts.caps:23:11-23:33: (if (< x 0) (- 0 x) x) -/
theorem abs_right.no_failure :
    ∀ (x : Int),
    capsInI64 x → abs_right.pre x = Except.ok true →
    ∃ (result : Int), abs_right.body x = Except.ok result := by
  sorry

/-- verify.contracts/abs_right/example/0
    at testdata/verify/contracts.caps:24:5-24:31: (example (abs_right -5) 5) -/
theorem abs_right.example_0 :
    verify_contracts.abs_right (-5 : Int) = Except.ok (5 : Int) := by
  sorry

/-! Obligations of ratio -/

/-- The requires of ratio: true when every clause holds. -/
def ratio.pre (a : Int) (b : Int) : Except String Bool :=
  pure true

/-- The body of ratio, without its contracts. -/
def ratio.body (a : Int) (b : Int) : Except String Int :=
  if b == 0 then Except.error "division-by-zero at site 3 in ratio" else
  pure (capsWrapU32 (capsTDiv a b))

/-- verify.contracts/ratio/no-failure
    at testdata/verify/contracts.caps:30:11-30:18: (/ a b) -/
theorem ratio.no_failure :
    ∀ (a : Int) (b : Int),
    capsInU32 a → capsInU32 b → ratio.pre a b = Except.ok true →
    ∃ (result : Int), ratio.body a b = Except.ok result := by
  sorry

/-! Obligations of twice_abs -/

/-- The requires of twice_abs: true when every clause holds. -/
def twice_abs.pre (x : Int) : Except String Bool :=
  pure true

/-- The body of twice_abs, without its contracts. -/
def twice_abs.body (x : Int) : Except String Int :=
  (verify_contracts.abs_right x) >>= fun t1 =>
  pure (capsWrapI64 ((2 : Int) * t1))

/-- verify.contracts/twice_abs/no-failure
    at testdata/verify/contracts.caps:36:11-36:30: (* 2 (abs_right x)) -/
theorem twice_abs.no_failure :
    ∀ (x : Int),
    capsInI64 x → twice_abs.pre x = Except.ok true →
    ∃ (result : Int), twice_abs.body x = Except.ok result := by
  sorry

/-! Obligations of bump -/

/-- The requires of bump: true when every clause holds. -/
def bump.pre (n : Int) : Except String Bool :=
  pure true

/-- The body of bump, without its contracts. -/
def bump.body (n : Int) : Except String Int :=
  pure (capsWrapU32 (n + (1 : Int)))

/-- The ensures 0 of bump, of the inputs and the result. -/
def bump.post_0 (n : Int) (l1 : Int) : Except String Bool :=
  pure (decide (l1 > n))

/-- verify.contracts/bump/ensures/0
    at testdata/verify/contracts.caps:42:14-42:26: (> result n) -/
theorem bump.ensures_0 :
    ∀ (n : Int),
    capsInU32 n → bump.pre n = Except.ok true →
    ∀ (result : Int), bump.body n = Except.ok result →
    bump.post_0 n result = Except.ok true := by
  sorry

/-- verify.contracts/bump/no-failure
    at testdata/verify/contracts.caps:43:11-43:18: (+ n 1) -/
theorem bump.no_failure :
    ∀ (n : Int),
    capsInU32 n → bump.pre n = Except.ok true →
    ∃ (result : Int), bump.body n = Except.ok result := by
  sorry

/-! Obligations of gcd -/
-- gcd is recursive, a partial def: Lean cannot unfold it, so these
-- statements about it need a total definition before they can be proved.

/-- The requires of gcd: true when every clause holds. -/
def gcd.pre (a : Int) (b : Int) : Except String Bool :=
  pure true

/-- The body of gcd, without its contracts. -/
def gcd.body (a : Int) (b : Int) : Except String Int :=
  (if (b == (0 : Int)) then (pure a) else (if b == 0 then Except.error "division-by-zero at site 6 in gcd" else
    (verify_contracts.gcd b (capsWrapU64 (capsTMod a b))) >>= fun t1 =>
    pure t1)) >>= fun t2 =>
  pure t2

/-- verify.contracts/gcd/no-failure
    at testdata/verify/contracts.caps:64:11-64:42: (if (== b 0) a (gcd b (% a b))) -/
theorem gcd.no_failure :
    ∀ (a : Int) (b : Int),
    capsInU64 a → capsInU64 b → gcd.pre a b = Except.ok true →
    ∃ (result : Int), gcd.body a b = Except.ok result := by
  sorry

/-- verify.contracts/gcd/example/0
    at testdata/verify/contracts.caps:65:5-65:28: (example (gcd 12 18) 6) -/
theorem gcd.example_0 :
    verify_contracts.gcd (12 : Int) (18 : Int) = Except.ok (6 : Int) := by
  sorry

/-! Obligations of half -/

/-- The requires of half: true when every clause holds. -/
def half.pre (n : Int) : Except String Bool :=
  pure true

/-- The body of half, without its contracts. -/
def half.body (n : Int) : Except String Int :=
  pure (capsWrapU64 (capsTDiv n (2 : Int)))

/-- verify.contracts/half/no-failure
    at testdata/verify/contracts.caps:78:11-78:18: (/ n 2) -/
theorem half.no_failure :
    ∀ (n : Int),
    capsInU64 n → half.pre n = Except.ok true →
    ∃ (result : Int), half.body n = Except.ok result := by
  sorry

/-- verify.contracts/half/example/0
    at testdata/verify/contracts.caps:79:5-79:25: (example (half 7) 4) -/
theorem half.example_0 :
    verify_contracts.half (7 : Int) = Except.ok (4 : Int) := by
  sorry

/- Not stated here:
  verify.contracts/level_of/ensures/0: function level_of is outside the Lean target's subset (caps compile-plan says why)
  verify.contracts/level_of/no-failure: function level_of is outside the Lean target's subset (caps compile-plan says why)
  verify.contracts/level_of/example/0: function level_of is outside the Lean target's subset (caps compile-plan says why)
  verify.contracts/rank/ensures/0: function rank is outside the Lean target's subset (caps compile-plan says why)
  verify.contracts/rank/no-failure: function rank is outside the Lean target's subset (caps compile-plan says why)
  verify.contracts/shout/ensures/0: function shout is outside the Lean target's subset (caps compile-plan says why)
  verify.contracts/shout/no-failure: function shout is outside the Lean target's subset (caps compile-plan says why)
  verify.contracts/Meter/open.Add/assign: the Lean target covers pure functions only; machine obligations are not stated in Lean
  verify.contracts/Meter/open.Average/guard: the Lean target covers pure functions only; machine obligations are not stated in Lean
  verify.contracts/Possible/satisfiable: the Lean target covers pure functions only; zk-proof obligations are not stated in Lean
  verify.contracts/Possible/no-failure: the Lean target covers pure functions only; zk-proof obligations are not stated in Lean
  verify.contracts/Impossible/satisfiable: the Lean target covers pure functions only; zk-proof obligations are not stated in Lean
  verify.contracts/Impossible/no-failure: the Lean target covers pure functions only; zk-proof obligations are not stated in Lean
-/

end verify_contracts
