(* Conservation of clients in the stage model of a burst (analytic/burst.hpp). With a_k the
   attempt rate out of stage k and P the success probability, clients flow
   dx_1 = inflow - a_1, dx_k = (1-P) a_(k-1) - a_k, and the cap's stage keeps its own failures:
   dx_S = (1-P) a_(S-1) - P a_S. The stages' total then changes by the inflow minus the successes,
   P times the attempts (total: Markov.v's sum of a list): no client is created or lost (burst: inflow 0). The phases inside a
   stage only pass clients along (their derivatives cancel) and are not modelled here. *)
Require Import Reals List Lra.
From Retrylab Require Import Markov.
Open Scope R_scope.

Fixpoint stage_derivatives (P inflow : R) (a : list R) : list R :=
  match a with
  | nil => nil
  | x :: nil => (inflow - P * x) :: nil
  | x :: t => (inflow - x) :: stage_derivatives P ((1 - P) * x) t
  end.

Theorem stage_conservation : forall (P inflow : R) (a : list R),
  a <> nil -> total (stage_derivatives P inflow a) = inflow - P * total a.
Proof.
  intros P inflow a. revert inflow.
  induction a as [| x t IH]; intros inflow Hne.
  - contradiction Hne; reflexivity.
  - destruct t as [| y t'].
    + simpl. lra.
    + change (stage_derivatives P inflow (x :: y :: t'))
        with ((inflow - x) :: stage_derivatives P ((1 - P) * x) (y :: t')).
      change (total ((inflow - x) :: stage_derivatives P ((1 - P) * x) (y :: t')))
        with ((inflow - x) + total (stage_derivatives P ((1 - P) * x) (y :: t'))).
      rewrite IH by discriminate.
      change (total (x :: y :: t')) with (x + total (y :: t')).
      lra.
Qed.
