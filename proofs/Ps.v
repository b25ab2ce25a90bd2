(** Processor sharing (analytic/ps.hpp). The proof's route is the M/M/1 queue with arrival rate λ
    and service rate 1/x, load ρ = λx < 1: its stationary law (1−ρ)ρ^n solves the balance
    equations (mm1_balance), its mean number is ρ/(1−ρ) (mm1_mean_number), and Little's law
    N = λT gives T = x/(1−ρ) (ps_mean_time).
    Cited assumptions (theorems of queueing theory, not Coq axioms, not proved here):
    - insensitivity of M/G/1-PS (Kleinrock 1967; Kelly, "Reversibility and Stochastic Networks",
      1979, §3.3): the number in an M/G/1-PS queue has the law (1−ρ)ρ^n for ANY service distribution
      of mean x, in particular the deterministic x = 1 of the engine's `ps` model;
    - Little's law N = λT for a stable queue in steady state.
    Backs analytic ps mean_time / mean_number (validation case ps_sojourn). *)
From Coq Require Import Reals Lra Lia.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** Stationary probability of n jobs in the system. *)
Definition mm1_pi (rho : R) (n : nat) : R := (1 - rho) * rho ^ n.

(** Global balance of the birth–death chain (rates in units of the service rate: birth ρ, death 1):
    state 0: ρ π_0 = π_1; state n+1: (ρ + 1) π_(n+1) = ρ π_n + π_(n+2); and the π_n sum to 1. *)
Theorem mm1_balance : forall rho : R,
  rho * mm1_pi rho 0 = mm1_pi rho 1 /\
  (forall n, (rho + 1) * mm1_pi rho (S n) = rho * mm1_pi rho n + mm1_pi rho (S (S n))) /\
  (0 <= rho < 1 -> is_series (mm1_pi rho) 1).
Proof.
  intro rho. unfold mm1_pi. split; [simpl; ring | split].
  - intro n. simpl. ring.
  - intros Hr.
    assert (H : is_series (fun n => scal (1 - rho) (rho ^ n)) (scal (1 - rho) (/ (1 - rho)))).
    { apply (is_series_scal_l (K := R_AbsRing) (V := R_NormedModule) (1 - rho) (fun n => rho ^ n)), is_series_geom. rewrite Rabs_pos_eq; lra. }
    unfold scal in H; simpl in H; unfold mult in H; simpl in H.
    rewrite Rinv_r in H by lra. exact H.
Qed.

Lemma lim_ratio : forall rho, is_lim_seq (fun n => INR (S (S n)) / INR (S n) * rho) rho.
Proof.
  intro rho.
  assert (Hinv : is_lim_seq (fun n => / INR (S n)) 0).
  { replace (Finite 0) with (Rbar_inv p_infty) by reflexivity.
    apply is_lim_seq_inv; [| discriminate].
    apply (is_lim_seq_incr_1 INR p_infty), is_lim_seq_INR. }
  assert (H : is_lim_seq (fun n => (1 + / INR (S n)) * rho) ((1 + 0) * rho)).
  { apply is_lim_seq_mult'; [apply is_lim_seq_plus'; [apply is_lim_seq_const | exact Hinv] |
                             apply is_lim_seq_const]. }
  replace ((1 + 0) * rho) with rho in H by ring.
  refine (is_lim_seq_ext _ _ _ _ H). intro n.
  rewrite (S_INR (S n)). field. apply not_0_INR. discriminate.
Qed.

(** Σ n ρ^n = ρ/(1−ρ)² for 0 <= ρ < 1. *)
Lemma series_n_geom : forall rho, 0 <= rho < 1 ->
  is_series (fun n => INR n * rho ^ n) (rho / (1 - rho) ^ 2).
Proof.
  intros rho Hr.
  destruct (Req_dec rho 0) as [-> | Hne].
  { replace (0 / (1 - 0) ^ 2) with (0 * / (1 - 0)) by (field; lra).
    assert (H : is_series (fun n => scal 0 (0 ^ n)) (scal 0 (/ (1 - 0)))).
    { apply (is_series_scal_l (K := R_AbsRing) (V := R_NormedModule) 0 (fun n => 0 ^ n)), is_series_geom. rewrite Rabs_R0; lra. }
    refine (is_series_ext _ _ _ _ H). intros [| n]; unfold scal; simpl; unfold mult; simpl; ring. }
  set (a := fun n => INR (S n) * rho ^ (S n)).
  assert (Hex : ex_series a).
  { apply ex_series_Rabs.
    apply (ex_series_DAlembert a rho); [lra | |].
    - intros n. unfold a. apply Rmult_integral_contrapositive. split.
      + apply not_0_INR. discriminate.
      + apply pow_nonzero. exact Hne.
    - refine (is_lim_seq_ext _ _ _ _ (lim_ratio rho)). intro n. unfold a.
      rewrite Rabs_pos_eq.
      + change (rho ^ S (S n)) with (rho * rho ^ S n). field.
        repeat split; first [apply pow_nonzero; exact Hne | apply not_0_INR; discriminate].
      + assert (0 < rho) by lra.
        apply Rmult_le_pos; [apply Rmult_le_pos; [apply pos_INR | apply pow_le; lra] |].
        left. apply Rinv_0_lt_compat, Rmult_lt_0_compat; [apply lt_0_INR; lia | apply pow_lt; lra]. }
  pose proof (Series_correct a Hex) as HL. set (L := Series a) in HL.
  (* Σ a = Σ_(n>=1) n ρ^n = Σ_(n>=0) n ρ^n, since the n = 0 term is 0. *)
  assert (Hu : is_series (fun n => INR n * rho ^ n) L).
  { apply (is_series_decr_1 (fun n => INR n * rho ^ n) L).
    match goal with |- is_series _ ?l => replace l with L end; [exact HL |].
    change (INR 0) with 0. rewrite Rmult_0_l. unfold plus, opp; simpl. ring. }
  (* a n = ρ (n ρ^n + ρ^n), so Σ a = ρ (L + 1/(1−ρ)). *)
  assert (Hg : is_series (fun n => rho ^ n) (/ (1 - rho))) by (apply is_series_geom; rewrite Rabs_pos_eq; lra).
  assert (Ha : is_series a (scal rho (plus L (/ (1 - rho))))).
  { refine (is_series_ext _ _ _ _ (is_series_scal_l rho _ _ (is_series_plus _ _ _ _ Hu Hg))).
    intro n. unfold a. rewrite S_INR. unfold scal, plus; simpl; unfold mult, plus; simpl. ring. }
  apply is_series_unique in Ha. fold L in Ha.
  unfold scal, plus in Ha; simpl in Ha; unfold mult, plus in Ha; simpl in Ha.
  replace (rho / (1 - rho) ^ 2) with L; [exact Hu |].
  apply (Rmult_eq_reg_r ((1 - rho) ^ 2)); [| apply pow_nonzero; lra].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by (apply pow_nonzero; lra).
  set (g := / (1 - rho)) in Ha.
  assert (Hg1 : (1 - rho) * g = 1) by (unfold g; field; lra).
  assert (H1 : L * (1 - rho) = rho * g).
  { rewrite Ha at 1. rewrite Ha. ring_simplify. nra. }
  replace (L * (1 - rho) ^ 2) with ((L * (1 - rho)) * (1 - rho)) by ring.
  rewrite H1. replace (rho * g * (1 - rho)) with (rho * ((1 - rho) * g)) by ring.
  rewrite Hg1. ring.
Qed.

(** Mean number in system: Σ n π_n = ρ/(1−ρ). *)
Theorem mm1_mean_number : forall rho, 0 <= rho < 1 ->
  is_series (fun n => INR n * mm1_pi rho n) (rho / (1 - rho)).
Proof.
  intros rho Hr.
  assert (H := is_series_scal_l (K := R_AbsRing) (V := R_NormedModule) (1 - rho) _ _ (series_n_geom rho Hr)).
  unfold scal in H; simpl in H; unfold mult in H; simpl in H.
  replace (rho / (1 - rho)) with ((1 - rho) * (rho / (1 - rho) ^ 2)) by (field; lra).
  refine (is_series_ext _ _ _ _ H). intro n. unfold mm1_pi.
  change ((1 - rho) * (INR n * rho ^ n) = INR n * ((1 - rho) * rho ^ n)). ring.
Qed.

(** Little's law N = λT with λ = ρ/x: the mean time in system is T = x/(1−ρ) (x = 1: 1/(1−ρ)). *)
Theorem ps_mean_time : forall x rho, 0 < x -> 0 < rho < 1 ->
  let N := rho / (1 - rho) in
  let lambda := rho / x in
  is_series (fun n => INR n * mm1_pi rho n) N /\ N / lambda = x / (1 - rho).
Proof.
  intros x rho Hx Hr N lambda. split.
  - apply mm1_mean_number. lra.
  - unfold N, lambda. field. lra.
Qed.
