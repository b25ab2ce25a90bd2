(* The generator of analytic/markov.hpp's chain. markov.cpp builds each row from the list of
   transition rates out of a state: the off-diagonal entries are those rates and the diagonal is
   minus their total, so the row's entries sum to zero whatever the rates
   (generator_rows_sum_zero: the statement checked numerically as row_sum_error).
   generator_assembled_rows_sum_zero follows the code's assembly itself: row i is the list of
   triplets (target j, rate) of the transitions out of state i plus (i, -total), and Eigen's
   setFromTriplets sums the triplets that fall on one entry (entry below), so duplicate targets and
   a transition back to i itself are covered. Summed over the n columns of the chain's states (every
   target one of them, the explored state list being closed under the transitions), the row is 0. *)
Require Import Reals List Lra Arith Lia.
Open Scope R_scope.

Fixpoint total (rates : list R) : R :=
  match rates with
  | nil => 0
  | r :: t => r + total t
  end.

Definition generator_row (rates : list R) : list R := (- total rates) :: rates.

Theorem generator_rows_sum_zero : forall rates : list R, total (generator_row rates) = 0.
Proof.
  intros rates. unfold generator_row. simpl. lra.
Qed.

(* Entry j of a row assembled from triplets (column, value): the sum of the values in column j. *)
Definition entry (triplets : list (nat * R)) (j : nat) : R :=
  total (map snd (filter (fun t => Nat.eqb (fst t) j) triplets)).

(* f 0 + ... + f (n - 1): a row summed over its n columns. *)
Fixpoint row_sum (f : nat -> R) (n : nat) : R :=
  match n with
  | O => 0
  | S k => row_sum f k + f k
  end.

(* Row i as markov.cpp emits it: the diagonal triplet, then one triplet per transition. *)
Definition assembled_row (i : nat) (out : list (nat * R)) : list (nat * R) :=
  (i, - total (map snd out)) :: out.

Lemma row_sum_ext : forall (f g : nat -> R) (n : nat),
  (forall j, f j = g j) -> row_sum f n = row_sum g n.
Proof.
  intros f g n H. induction n as [| k IH]; simpl; [reflexivity | rewrite IH, H; reflexivity].
Qed.

Lemma row_sum_plus : forall (f g : nat -> R) (n : nat),
  row_sum (fun j => f j + g j) n = row_sum f n + row_sum g n.
Proof.
  intros f g n. induction n as [| k IH]; simpl; [lra | rewrite IH; lra].
Qed.

Lemma row_sum_point_outside : forall (c n : nat) (r : R),
  (n <= c)%nat -> row_sum (fun j => if Nat.eqb c j then r else 0) n = 0.
Proof.
  intros c n r. induction n as [| k IH]; intros Hle; simpl; [reflexivity |].
  rewrite IH by lia.
  destruct (Nat.eqb c k) eqn:E; [apply Nat.eqb_eq in E; lia | lra].
Qed.

Lemma row_sum_point : forall (c n : nat) (r : R),
  (c < n)%nat -> row_sum (fun j => if Nat.eqb c j then r else 0) n = r.
Proof.
  intros c n r. induction n as [| k IH]; intros Hlt; [lia |]. simpl.
  destruct (Nat.eq_dec c k) as [-> | Hne].
  - rewrite row_sum_point_outside by lia. rewrite Nat.eqb_refl. lra.
  - rewrite IH by lia. apply Nat.eqb_neq in Hne. rewrite Hne. lra.
Qed.

Lemma entry_cons : forall (t : nat * R) (triplets : list (nat * R)) (j : nat),
  entry (t :: triplets) j = (if Nat.eqb (fst t) j then snd t else 0) + entry triplets j.
Proof.
  intros t triplets j. unfold entry. simpl.
  destruct (Nat.eqb (fst t) j); simpl; lra.
Qed.

Lemma row_sum_entry : forall (n : nat) (triplets : list (nat * R)),
  Forall (fun t => (fst t < n)%nat) triplets -> row_sum (entry triplets) n = total (map snd triplets).
Proof.
  intros n triplets. induction triplets as [| t rest IH]; intros Hall.
  - simpl. induction n as [| k IHn]; simpl; [reflexivity |].
    rewrite IHn by constructor. unfold entry. simpl. lra.
  - inversion Hall as [| ? ? Ht Hrest]; subst.
    rewrite (row_sum_ext _ (fun j => (if Nat.eqb (fst t) j then snd t else 0) + entry rest j))
      by (intro j; apply entry_cons).
    rewrite row_sum_plus, row_sum_point by exact Ht. rewrite IH by exact Hrest. simpl. lra.
Qed.

Theorem generator_assembled_rows_sum_zero : forall (n i : nat) (out : list (nat * R)),
  (i < n)%nat -> Forall (fun t => (fst t < n)%nat) out ->
  row_sum (entry (assembled_row i out)) n = 0.
Proof.
  intros n i out Hi Hout. unfold assembled_row.
  rewrite row_sum_entry by (constructor; [exact Hi | exact Hout]). simpl. lra.
Qed.
