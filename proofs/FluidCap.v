(** The fluid estimate of the cap a burst needs on a `collision` channel (analytic/fluid_cap.hpp).
    B burst clients with mean sleep m at the cap offer load B/(m+1); with steady load λ the offered
    load is G = λ + B/(m+1). ALOHA's goodput aloha G = G e^(-2G) stays >= λ only for G <= G*, the
    upper root of aloha G = λ, which exists and is unique above 1/2 for 0 < λ < 1/(2e)
    (fluid_upper_root_unique). The burst drains in this estimate iff m >= m* = B/(G* − λ) − 1
    (fluid_drain_criterion), and the threshold cap is the least c >= b with m(c) >= m*; it is
    monotone in the burst size B (fluid_cap_monotone), for any mean-sleep function m.
    Backs analytic fluid_cap (validation case fluid_cap). *)
From Coq Require Import Reals Lra.
From Coquelicot Require Import Coquelicot.
From Retrylab Require Import Bounds.
From Retrylab Require Import Aloha.
Open Scope R_scope.

Theorem fluid_upper_root_unique : forall lambda : R,
  0 < lambda < / (2 * exp 1) ->
  exists! G : R, 1 / 2 < G /\ aloha G = lambda.
Proof.
  intros lambda Hl.
  destruct (aloha_inverse_high_unique lambda ltac:(lra)) as [G [[HG HGl] Huniq]].
  assert (Hne : G <> 1 / 2).
  { intros ->. rewrite (proj1 (proj2 (aloha_max 0))) in HGl. lra. }
  exists G. split; [split; [lra | exact HGl] |].
  intros G' [HG' HG'l]. apply Huniq. split; [lra | exact HG'l].
Qed.

(** m* = B/(G* − λ) − 1, the required mean sleep at the cap. *)
Definition required_mean_sleep (B G_star lambda : R) : R := B / (G_star - lambda) - 1.

(** The upper root lies above the load itself, so m* is well defined. *)
Lemma fluid_root_above_load : forall lambda G : R,
  0 < lambda < / (2 * exp 1) -> 1 / 2 < G -> lambda < G.
Proof.
  intros lambda G Hl HG. pose proof e_bounds as He.
  assert (/ (2 * exp 1) < 1 / 2).
  { apply (Rmult_lt_reg_r (2 * exp 1)); [lra |]. rewrite Rinv_l by lra. lra. }
  lra.
Qed.

(** Offered load λ + B/(m+1) stays at or below G* exactly when m >= m*. *)
Theorem fluid_drain_criterion : forall B G_star lambda m : R,
  0 <= m -> lambda < G_star ->
  (lambda + B / (m + 1) <= G_star <-> required_mean_sleep B G_star lambda <= m).
Proof.
  intros B G lambda m Hm HG. unfold required_mean_sleep.
  assert (E1 : lambda + B / (m + 1) <= G <-> B <= (G - lambda) * (m + 1)).
  { split; intro H.
    - apply (Rmult_le_compat_r (m + 1)) in H; [| lra].
      rewrite Rmult_plus_distr_r in H. unfold Rdiv in H.
      rewrite Rmult_assoc, Rinv_l, Rmult_1_r in H by lra. lra.
    - apply (Rmult_le_reg_r (m + 1)); [lra |]. unfold Rdiv.
      rewrite Rmult_plus_distr_r, Rmult_assoc, Rinv_l, Rmult_1_r by lra. lra. }
  assert (E2 : B / (G - lambda) - 1 <= m <-> B <= (G - lambda) * (m + 1)).
  { split; intro H.
    - apply (Rmult_le_compat_r (G - lambda)) in H; [| lra]. unfold Rdiv in H.
      rewrite Rmult_minus_distr_r, Rmult_assoc, Rinv_l, Rmult_1_r in H by lra. lra.
    - apply (Rmult_le_reg_r (G - lambda)); [lra |]. unfold Rdiv.
      rewrite Rmult_minus_distr_r, Rmult_assoc, Rinv_l, Rmult_1_r by lra. lra. }
  rewrite E1, E2. tauto.
Qed.

(** m* grows with the burst. *)
Lemma required_mean_sleep_monotone : forall B1 B2 G_star lambda : R,
  lambda < G_star -> B1 <= B2 ->
  required_mean_sleep B1 G_star lambda <= required_mean_sleep B2 G_star lambda.
Proof.
  intros B1 B2 G lambda HG HB. unfold required_mean_sleep, Rdiv.
  apply Rplus_le_compat_r, Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | exact HB].
Qed.

(** The threshold cap: the least c >= b whose mean sleep m c reaches m*. *)
Definition is_threshold_cap (m : R -> R) (b B G_star lambda c : R) : Prop :=
  b <= c /\ required_mean_sleep B G_star lambda <= m c /\
  forall c', b <= c' -> required_mean_sleep B G_star lambda <= m c' -> c <= c'.

(** The threshold cap is monotone in the burst size (for G* the upper root, any mean-sleep law m). *)
Theorem fluid_cap_monotone : forall (m : R -> R) (b lambda G_star B1 B2 c1 c2 : R),
  0 < lambda < / (2 * exp 1) -> 1 / 2 < G_star -> aloha G_star = lambda ->
  B1 <= B2 ->
  is_threshold_cap m b B1 G_star lambda c1 -> is_threshold_cap m b B2 G_star lambda c2 ->
  c1 <= c2.
Proof.
  intros m b lambda G B1 B2 c1 c2 Hl HG _ HB [_ [_ Hleast]] [Hb2 [Hm2 _]].
  apply Hleast; [exact Hb2 |].
  pose proof (required_mean_sleep_monotone B1 B2 G lambda (fluid_root_above_load lambda G Hl HG) HB).
  lra.
Qed.
