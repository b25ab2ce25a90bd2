(* Conservation of clients in the stage model of a burst (analytic/burst.hpp). With a_k the
   attempt rate out of stage k and P the success probability, clients flow
   dx_1 = inflow - a_1, dx_k = (1-P) a_(k-1) - a_k, and the cap's stage keeps its own failures:
   dx_S = (1-P) a_(S-1) - P a_S. The stages' total then changes by the inflow minus the successes,
   P times the attempts (total: Markov.v's sum of a list): no client is created or lost (burst:
   inflow 0). stage_conservation is this one-phase form.
   The code's form, with the method of phases (burst.cpp: Stages::operator()): stage k is a list of
   r phase occupancies x_(k,1..r) passed along at rate mu_k each; its attempts are a_k = mu_k times
   the last phase; the first phase receives the stage's inflow (the cap's stage: plus its own
   failures (1-P) a_S) and loses mu_k x_(k,1); phase j > 1 gains mu_k (x_(k,j-1) - x_(k,j)). The
   burst population has inflow 0, the steady one the arrivals' failed first attempts lambda (1-P).
   stage_model_conservation: the right-hand side sums to the arrival rate minus the successes
   P (lambda + all stage attempts), and the burst's stages lose exactly their successes (so
   burst_left + burst_successes stays B: the code's conservation_error). The values x are the
   code's occupancies after its clamp max(0, .), which it applies before every use. *)
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

(* The last phase of a stage (0 for an empty list, which the theorems exclude). *)
Fixpoint last_phase (xs : list R) : R :=
  match xs with
  | nil => 0
  | x :: nil => x
  | _ :: t => last_phase t
  end.

(* Phases 2..r: each gains mu times the previous phase and loses mu times itself. *)
Fixpoint passed_on (mu prev : R) (xs : list R) : list R :=
  match xs with
  | nil => nil
  | x :: t => mu * (prev - x) :: passed_on mu x t
  end.

(* The derivatives of one stage's phases, given what enters its first phase. *)
Definition phase_derivatives (mu entering : R) (xs : list R) : list R :=
  match xs with
  | nil => nil
  | x :: t => (entering - mu * x) :: passed_on mu x t
  end.

(* A stage is (mu, phases); its attempt rate is mu times its last phase. *)
Definition stage_attempts (s : R * list R) : R := fst s * last_phase (snd s).

(* The code's loop over the stages of one population, from its inflow. *)
Fixpoint phased_derivatives (P inflow : R) (stages : list (R * list R)) : list R :=
  match stages with
  | nil => nil
  | s :: nil => phase_derivatives (fst s) (inflow + (1 - P) * stage_attempts s) (snd s)
  | s :: t => phase_derivatives (fst s) inflow (snd s) ++ phased_derivatives P ((1 - P) * stage_attempts s) t
  end.

(* Both populations: the burst (inflow 0), then the steady clients (inflow lambda (1 - P)). *)
Definition stage_model_rhs (P lambda : R) (burst steady : list (R * list R)) : list R :=
  phased_derivatives P 0 burst ++ phased_derivatives P (lambda * (1 - P)) steady.

Lemma total_app : forall a b : list R, total (a ++ b) = total a + total b.
Proof. intros a b. induction a as [| x t IH]; simpl; [lra | rewrite IH; lra]. Qed.

Lemma passed_on_total : forall (mu prev : R) (xs : list R),
  total (passed_on mu prev xs) = mu * (prev - last_phase (prev :: xs)).
Proof.
  intros mu prev xs. revert prev. induction xs as [| x t IH]; intro prev.
  - simpl. lra.
  - change (total (passed_on mu prev (x :: t))) with (mu * (prev - x) + total (passed_on mu x t)).
    rewrite IH. change (last_phase (prev :: x :: t)) with (last_phase (x :: t)). lra.
Qed.

Lemma phase_derivatives_total : forall (mu entering : R) (xs : list R),
  xs <> nil -> total (phase_derivatives mu entering xs) = entering - mu * last_phase xs.
Proof.
  intros mu entering xs Hne. destruct xs as [| x t]; [contradiction Hne; reflexivity |].
  change (total (phase_derivatives mu entering (x :: t)))
    with ((entering - mu * x) + total (passed_on mu x t)).
  rewrite passed_on_total. lra.
Qed.

Theorem phased_stage_conservation : forall (P inflow : R) (stages : list (R * list R)),
  stages <> nil -> Forall (fun s => snd s <> nil) stages ->
  total (phased_derivatives P inflow stages) = inflow - P * total (map stage_attempts stages).
Proof.
  intros P inflow stages. revert inflow.
  induction stages as [| s t IH]; intros inflow Hne Hall; [contradiction Hne; reflexivity |].
  inversion Hall as [| ? ? Hs Ht]; subst.
  destruct t as [| s' t'].
  - simpl phased_derivatives. rewrite phase_derivatives_total by exact Hs.
    unfold stage_attempts. simpl. lra.
  - change (phased_derivatives P inflow (s :: s' :: t'))
      with (phase_derivatives (fst s) inflow (snd s) ++ phased_derivatives P ((1 - P) * stage_attempts s) (s' :: t')).
    rewrite total_app, phase_derivatives_total by exact Hs.
    rewrite IH by (discriminate || exact Ht).
    change (total (map stage_attempts (s :: s' :: t')))
      with (stage_attempts s + total (map stage_attempts (s' :: t'))).
    unfold stage_attempts at 1 3. lra.
Qed.

Theorem stage_model_conservation : forall (P lambda : R) (burst steady : list (R * list R)),
  burst <> nil -> steady <> nil ->
  Forall (fun s => snd s <> nil) burst -> Forall (fun s => snd s <> nil) steady ->
  total (stage_model_rhs P lambda burst steady) =
    lambda - P * (lambda + total (map stage_attempts burst) + total (map stage_attempts steady)) /\
  total (phased_derivatives P 0 burst) + P * total (map stage_attempts burst) = 0.
Proof.
  intros P lambda burst steady Hb Hs Hball Hsall. unfold stage_model_rhs.
  rewrite total_app, !phased_stage_conservation by assumption. split; lra.
Qed.
