(* The generator of analytic/markov.hpp's chain. markov.cpp builds each row from the list of
   transition rates out of a state: the off-diagonal entries are those rates (duplicates to one
   target are summed, which leaves the row sum unchanged) and the diagonal is minus their total.
   So every row sums to zero, whatever the rates: the statement checked numerically as
   row_sum_error. *)
Require Import Reals List Lra.
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
