(** Decorrelated jitter's log growth. The sleep after a sleep s is U(b, 3s) (while 3s stays below
    the cap; decorrelated_step_growth_capped covers min(c, U(b, 3s))), so its log grows on average
    by E[ln U(b, 3s)] − ln s; once s >> b this tends to
    E[ln U(0, 3)] = (1/3) ∫_0^3 ln x dx = ln 3 − 1 ≈ 0.0986 (an improper integral at 0+).
    Backs analytic decorrelated growth (validation case decorrelated_growth). *)
From Coq Require Import Reals Lra.
From Coquelicot Require Import Coquelicot.
From Retrylab Require Import Bounds.
Open Scope R_scope.

Definition xlnx_minus_x (x : R) : R := x * ln x - x.

Lemma filterlim_at_point_self : forall (f : R -> R) a, filterlim f (at_point a) (locally (f a)).
Proof. intros f a P HP. unfold at_point. exact (locally_singleton _ _ HP). Qed.

Lemma xlnx_lim_0 : filterlim (fun x => x * ln x) (at_right 0) (locally 0).
Proof.
  assert (H : filterlim (fun x => - (ln (/ x) / (/ x))) (at_right 0) (locally 0)).
  { rewrite <- Ropp_0 at 2.
    eapply (filterlim_comp _ _ _ (fun x => ln (/ x) / / x) Ropp).
    - eapply (filterlim_comp _ _ _ Rinv (fun y => ln y / y) _ (Rbar_locally p_infty)).
      + exact filterlim_Rinv_0_right.
      + exact is_lim_div_ln_p.
    - exact (filterlim_opp 0). }
  refine (filterlim_ext_loc _ _ _ H).
  exists (mkposreal 1 Rlt_0_1). intros x _ Hx.
  rewrite ln_Rinv by lra. field. lra.
Qed.

Lemma id_lim_0 : filterlim (fun x => - x) (at_right 0) (locally 0).
Proof.
  intros P [eps HP]. exists eps. intros y Hy _. apply HP.
  unfold ball in *; simpl in *; unfold AbsRing_ball, abs, minus, plus, opp in *; simpl in *.
  rewrite Ropp_0, Rplus_0_r in *. rewrite Rabs_Ropp. exact Hy.
Qed.

Lemma xlnx_minus_x_lim_0 : filterlim xlnx_minus_x (at_right 0) (locally 0).
Proof.
  unfold xlnx_minus_x. assert (E : plus 0 0 = 0) by (unfold plus; simpl; ring). rewrite <- E at 2.
  refine (filterlim_ext (fun x => plus (x * ln x) (- x)) _ _ _). { intro x. unfold plus; simpl; ring. }
  exact (filterlim_comp_2 (fun x => x * ln x) (fun x => - x) plus xlnx_lim_0 id_lim_0 (filterlim_plus 0 0)).
Qed.

Lemma xlnx_minus_x_derive : forall x, 0 < x -> is_derive xlnx_minus_x x (ln x).
Proof.
  intros x Hx. unfold xlnx_minus_x. auto_derive; [exact Hx | field; lra].
Qed.

Lemma Derive_xlnx : forall x, 0 < x -> Derive xlnx_minus_x x = ln x.
Proof. intros x Hx. apply is_derive_unique, xlnx_minus_x_derive, Hx. Qed.

Lemma Derive_xlnx_continuous : forall x, 0 < x -> continuous (Derive xlnx_minus_x) x.
Proof.
  intros x Hx. apply (continuous_ext_loc _ ln).
  - apply (locally_interval _ x 0 p_infty); [exact Hx | exact I |].
    intros y Hy _. symmetry. apply Derive_xlnx, Hy.
  - apply continuous_ln, Hx.
Qed.

(** ∫_0^b ln x dx = b ln b − b, improper at 0+, from the antiderivative x ln x − x (→ 0 at 0+). *)
Lemma ln_integral_0 : forall b, 0 < b ->
  is_RInt_gen ln (at_right 0) (at_point b) (b * ln b - b).
Proof.
  intros b Hb.
  assert (Hd : is_RInt_gen (Derive xlnx_minus_x) (at_right 0) (at_point b) (xlnx_minus_x b - 0)).
  { apply is_RInt_gen_Derive.
    - exists (fun a => 0 < a) (fun c => c = b).
      + exists (mkposreal 1 Rlt_0_1). intros y _ Hy. exact Hy.
      + reflexivity.
      + intros a c Ha Hc x Hx. simpl in Hx. subst c.
        assert (0 < x) by (apply Rlt_le_trans with (Rmin a b); [apply Rmin_glb_lt|]; lra).
        eexists. apply xlnx_minus_x_derive. assumption.
    - exists (fun a => 0 < a) (fun c => c = b).
      + exists (mkposreal 1 Rlt_0_1). intros y _ Hy. exact Hy.
      + reflexivity.
      + intros a c Ha Hc x Hx. simpl in Hx. subst c.
        assert (0 < x) by (apply Rlt_le_trans with (Rmin a b); [apply Rmin_glb_lt|]; lra).
        apply Derive_xlnx_continuous. assumption.
    - exact xlnx_minus_x_lim_0.
    - apply filterlim_at_point_self. }
  replace (b * ln b - b) with (xlnx_minus_x b - 0) by (unfold xlnx_minus_x; ring).
  refine (is_RInt_gen_ext _ _ _ _ Hd).
  exists (fun a => 0 < a) (fun c => c = b).
  + exists (mkposreal 1 Rlt_0_1). intros y _ Hy. exact Hy.
  + reflexivity.
  + intros a c Ha Hc x Hx. simpl in Hx. subst c.
    assert (0 < x) by (apply Rlt_le_trans with (Rmin a b); [apply Rmin_glb_lt|]; lra).
    apply Derive_xlnx. assumption.
Qed.

(** (1/3) ∫_0^3 ln x dx = ln 3 − 1, improper at 0+: E[ln U(0,3)]. *)
Theorem log_uniform_integral :
  is_RInt_gen (fun x => / 3 * ln x) (at_right 0) (at_point 3) (ln 3 - 1).
Proof.
  replace (ln 3 - 1) with (scal (/ 3) (3 * ln 3 - 3)) by (unfold scal; simpl; unfold mult; simpl; field).
  apply (is_RInt_gen_scal ln (/ 3)). apply ln_integral_0. lra.
Qed.

(** Certified bounds on the limit growth ln 3 − 1. *)
Theorem growth_limit_bounds : 0.0986 <= ln 3 - 1 <= 0.0987.
Proof. pose proof ln3_bounds. lra. Qed.

(** The one-step log growth in the header's notation, r = b/s (uncapped case γ = 3). *)
Definition decorrelated_growth (r : R) : R := (3 * ln 3 - 3 - r * ln r + r) / (3 - r).

(** The same in terms of b and s, used for the limit. *)
Definition growth_bs (b s : R) : R :=
  (3 * s * (ln 3 - 1) + b * (1 + ln (s / b))) / (3 * s - b).

Lemma growth_bs_eq : forall b s, 0 < b -> 0 < s -> 3 * s - b <> 0 ->
  growth_bs b s = decorrelated_growth (b / s).
Proof.
  intros b s Hb Hs Hd. unfold growth_bs, decorrelated_growth.
  rewrite !ln_div by lra.
  replace (3 - b / s) with ((3 * s - b) / s) by (field; lra).
  field. split; lra.
Qed.

(** Exact one-step growth: for 0 < b <= s (and 3s at most the cap), the next sleep is U(b, 3s)
    with density 1/(3s − b), and E[ln(s_k / s_(k−1)) | s_(k−1) = s] = decorrelated_growth (b/s)
    = (3 ln 3 − 3 − r ln r + r)/(3 − r), r = b/s. *)
Theorem decorrelated_step_growth : forall b s : R, 0 < b <= s ->
  is_RInt (fun x => ln (x / s) / (3 * s - b)) b (3 * s) (decorrelated_growth (b / s)).
Proof.
  intros b s [Hb Hs].
  set (F := fun x => x * ln (x / s) - x).
  assert (HF : forall x, 0 < x -> is_derive F x (ln (x / s))).
  { intros x Hx. unfold F. auto_derive.
    - repeat split; try lra. apply Rdiv_lt_0_compat; lra.
    - replace (x * (1 * / s * / (x * / s))) with 1 by (field; lra). unfold Rdiv. ring. }
  assert (Hi : is_RInt (fun x => ln (x / s)) b (3 * s) (F (3 * s) - F b)).
  { refine (is_RInt_derive (V := R_CompleteNormedModule) F (fun x => ln (x / s)) b (3 * s) _ _).
    - intros x Hx. rewrite Rmin_left, Rmax_right in Hx by lra. apply HF. lra.
    - intros x Hx. rewrite Rmin_left, Rmax_right in Hx by lra.
      apply (continuous_comp (fun x => x / s) ln).
      + apply (ex_derive_continuous (V := R_NormedModule) (fun x => x / s)). auto_derive. lra.
      + apply continuous_ln. apply Rdiv_lt_0_compat; lra. }
  apply (is_RInt_scal _ _ _ (/ (3 * s - b))) in Hi.
  assert (E : scal (/ (3 * s - b)) (F (3 * s) - F b) = decorrelated_growth (b / s)).
  { unfold scal; simpl; unfold mult; simpl. unfold F, decorrelated_growth.
    replace (3 * s / s) with 3 by (field; lra).
    field. split; [lra |]. intro H. assert (b = 3 * s) by (apply (Rmult_eq_reg_r (/ s)); [| apply Rinv_neq_0_compat; lra]; rewrite Rmult_comm; rewrite (Rmult_comm (3 * s)); unfold Rdiv in H; lra). lra. }
  rewrite <- E. refine (is_RInt_ext _ _ _ _ _ _ Hi).
  intros x _. unfold scal; simpl; unfold mult; simpl. unfold Rdiv. ring.
Qed.

(** ∫_b^c ln(x/s) dx = (c ln(c/s) − c) − (b ln(b/s) − b) for 0 < b <= c, s > 0. *)
Lemma ln_ratio_integral : forall b c s : R, 0 < b <= c -> 0 < s ->
  is_RInt (fun x => ln (x / s)) b c ((c * ln (c / s) - c) - (b * ln (b / s) - b)).
Proof.
  intros b c s [Hb Hbc] Hs.
  set (F := fun x => x * ln (x / s) - x).
  assert (HF : forall x, 0 < x -> is_derive F x (ln (x / s))).
  { intros x Hx. unfold F. auto_derive.
    - repeat split; try lra. apply Rdiv_lt_0_compat; lra.
    - replace (x * (1 * / s * / (x * / s))) with 1 by (field; lra). unfold Rdiv. ring. }
  refine (is_RInt_derive (V := R_CompleteNormedModule) F (fun x => ln (x / s)) b c _ _).
  - intros x Hx. rewrite Rmin_left, Rmax_right in Hx by lra. apply HF. lra.
  - intros x Hx. rewrite Rmin_left, Rmax_right in Hx by lra.
    apply (continuous_comp (fun x => x / s) ln).
    + apply (ex_derive_continuous (V := R_NormedModule) (fun x => x / s)). auto_derive. lra.
    + apply continuous_ln. apply Rdiv_lt_0_compat; lra.
Qed.

(** The header's one-step growth with a cap, γ = min(3, c/s), r = b/s. *)
Definition decorrelated_growth_capped (r gamma : R) : R :=
  (3 * ln gamma - gamma - r * ln r + r) / (3 - r).

(** Capped one-step growth: for 0 < b <= s <= c <= 3s the next sleep is min(c, U(b, 3s)): density
    1/(3s − b) on [b, c) and an atom (3s − c)/(3s − b) at c. Its expected log growth,
    ∫_b^c ln(x/s)/(3s − b) dx + (3s − c)/(3s − b) · ln(c/s), is (3 ln γ − γ − r ln r + r)/(3 − r)
    with γ = c/s; at c = 3s (γ = 3) this is decorrelated_growth. *)
Theorem decorrelated_step_growth_capped : forall b s c : R, 0 < b <= s -> s <= c <= 3 * s ->
  exists I : R,
    is_RInt (fun x => ln (x / s) / (3 * s - b)) b c I /\
    I + (3 * s - c) / (3 * s - b) * ln (c / s) = decorrelated_growth_capped (b / s) (c / s) /\
    decorrelated_growth_capped (b / s) 3 = decorrelated_growth (b / s).
Proof.
  intros b s c [Hb Hs] [Hsc Hc3].
  assert (Hd : 0 < 3 * s - b) by lra.
  pose proof (ln_ratio_integral b c s ltac:(lra) ltac:(lra)) as Hi.
  apply (is_RInt_scal _ _ _ (/ (3 * s - b))) in Hi.
  eexists. split; [| split].
  - refine (is_RInt_ext _ _ _ _ _ _ Hi).
    intros x _. unfold scal; simpl; unfold mult; simpl. unfold Rdiv. ring.
  - unfold scal; simpl; unfold mult; simpl. unfold decorrelated_growth_capped.
    replace (3 - b / s) with ((3 * s - b) / s) by (field; lra).
    field. lra.
  - reflexivity.
Qed.

Lemma lim_inv_p_infty : is_lim (fun s => / s) p_infty 0.
Proof.
  replace (Finite 0) with (Rbar_inv p_infty) by reflexivity.
  apply is_lim_inv; [apply is_lim_id | discriminate].
Qed.

Lemma growth_bs_limit : forall b : R, 0 < b ->
  is_lim (fun s => growth_bs b s) p_infty (ln 3 - 1).
Proof.
  intros b Hb.
  set (num := fun s => 3 * (ln 3 - 1) + b * / s + b * (ln s / s) - b * ln b * / s).
  set (den := fun s => 3 - b * / s).
  assert (Hn : is_lim num p_infty (3 * (ln 3 - 1))).
  { replace (3 * (ln 3 - 1)) with (3 * (ln 3 - 1) + b * 0 + b * 0 - b * ln b * 0) by ring.
    apply is_lim_minus'; [apply is_lim_plus'; [apply is_lim_plus' |] |].
    - apply is_lim_const.
    - apply (is_lim_scal_l (fun s => / s) b p_infty 0), lim_inv_p_infty.
    - apply (is_lim_scal_l (fun s => ln s / s) b p_infty 0), is_lim_div_ln_p.
    - apply (is_lim_scal_l (fun s => / s) (b * ln b) p_infty 0), lim_inv_p_infty. }
  assert (Hd : is_lim den p_infty (3 - b * 0)).
  { apply is_lim_minus'; [apply is_lim_const |].
    apply (is_lim_scal_l (fun s => / s) b p_infty 0), lim_inv_p_infty. }
  rewrite Rmult_0_r, Rminus_0_r in Hd.
  assert (Hq : is_lim (fun s => num s / den s) p_infty (Rbar_div (3 * (ln 3 - 1)) 3)).
  { apply is_lim_div; [exact Hn | exact Hd | | exact I].
    intro H. injection H. lra. }
  simpl in Hq. replace (ln 3 - 1) with (3 * (ln 3 - 1) / 3) by field.
  refine (is_lim_ext_loc _ _ _ _ _ Hq).
  exists b. intros s Hs. unfold num, den, growth_bs.
  rewrite ln_div by lra. field. lra.
Qed.

(** As s/b → ∞ (s → ∞ for a fixed base b) the one-step growth tends to ln 3 − 1. *)
Theorem decorrelated_step_growth_limit : forall b : R, 0 < b ->
  is_lim (fun s => decorrelated_growth (b / s)) p_infty (ln 3 - 1).
Proof.
  intros b Hb. refine (is_lim_ext_loc _ _ _ _ _ (growth_bs_limit b Hb)).
  exists b. intros s Hs. apply growth_bs_eq; lra.
Qed.
