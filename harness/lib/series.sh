# SPDX-License-Identifier: GPL-2.0
# The patch series: one patch per project commit that changes the composed
# kernel tree, in history order.  Commits that only touch the harness are
# left out; "fixup! <subject>" commits are folded into the patch they name.
# A fixup's paragraphs that start with "checkpatch:" go into the message of
# the patch it is folded into (see series_message).  An "amend! <subject>"
# commit is folded the same way, and its body (as in git's own autosquash:
# the new subject, a blank line, the new body) replaces the patch's message.
# shellcheck shell=bash

KP_SERIES_OUT=$KP_ROOT/out/series
KP_SUBJECT_RE='^([A-Za-z0-9_./-]+: )+[^ ]'

# Composed trees of earlier runs, one "KEY REV TREE" line each.  A commit's
# composed tree depends only on the commit, the base and the composing
# code, so KEY names the last two; a line of another key is ignored.
KP_SERIES_TREES=${KP_SERIES_TREES:-$KP_WORK/series-trees}

series_trees_key() {
	printf '%s-%s' "$(git -C "$KP_BASE_SRC" rev-parse 'base^{tree}')" \
		"$(git hash-object "$KP_HARNESS/lib/compose.sh")"
}

# Fetch the project's history into the base repository and plan the
# series: "REV TREE pick" for a patch, "REV TREE fixup TARGET" for a fixup.
# This runs inside a command substitution, where bash does not stop at a
# failed command: every step that can fail says so and dies.
series_plan() {
	local rev tree prev subject target revs key k r t ref=refs/kp/${KP_TMP##*/}
	local -A patch_of=() tree_of=()
	git -C "$KP_BASE_SRC" fetch -q --no-tags "$KP_ROOT" "+HEAD:$ref" ||
		die "cannot read the project's history (commit something first)"
	revs=$(git -C "$KP_BASE_SRC" rev-list --reverse --first-parent "$ref") ||
		die "cannot list the project's commits"
	git -C "$KP_BASE_SRC" update-ref -d "$ref"
	key=$(series_trees_key)
	if [ -f "$KP_SERIES_TREES" ]; then
		while read -r k r t; do
			[ "$k" = "$key" ] && tree_of[$r]=$t
		done <"$KP_SERIES_TREES"
	fi
	stage "composing the kernel tree at each of the project's" \
		"$(wc -w <<<"$revs") commits (${#tree_of[@]} known from" \
		"${KP_SERIES_TREES#"$KP_ROOT"/})" >&2
	prev=$(git -C "$KP_BASE_SRC" rev-parse 'base^{tree}')
	for rev in $revs; do
		tree=${tree_of[$rev]:-}
		if [ -z "$tree" ]; then
			tree=$(compose_tree "$rev") && [ -n "$tree" ] ||
				die "cannot compose the kernel tree at $rev" \
					"($(git -C "$KP_BASE_SRC" log -1 --format=%s "$rev")):" \
					"the message above says why"
			echo "$key $rev $tree" >>"$KP_SERIES_TREES"
		fi
		subject=$(git -C "$KP_BASE_SRC" log -1 --format=%s "$rev")
		# A fixup that only justifies a checkpatch warning, or an amend!
		# that only rewrites the message, changes no file but still counts.
		if [ "$tree" = "$prev" ] && [[ $subject != "amend! "* ]] &&
			! { [[ $subject == "fixup! "* ]] &&
			series_checkpatch_notes "$rev" | grep -q .; }; then
			continue
		fi
		prev=$tree
		if [[ $subject == "fixup! "* || $subject == "amend! "* ]]; then
			target=${patch_of[${subject#*! }]:-}
			[ -n "$target" ] || die "$rev: '$subject' names no earlier patch"
			echo "$rev $tree fixup $target"
		else
			[[ $subject =~ $KP_SUBJECT_RE ]] ||
				die "$rev changes the kernel tree but '$subject' is not a kernel-style subject"
			patch_of[$subject]=$rev
			echo "$rev $tree pick"
		fi
	done
}

# Build the series; prints its last commit.
series_commits() {
	local plan=$KP_TMP/series.plan
	series_plan >"$plan" || exit 1
	if grep -q ' fixup ' "$plan"; then
		series_fold "$plan"
	else
		series_linear "$plan"
	fi
}

series_linear() {
	local rev tree parent
	parent=$(git -C "$KP_BASE_SRC" rev-parse base)
	while read -r rev tree _; do
		parent=$(series_commit "$rev" "$tree" "$parent") ||
			die "cannot write the patch of $rev"
	done <"$1"
	echo "$parent"
}

# One commit with the project commit's author, date and message, and a
# Signed-off-by of its author when the message lacks one.  Further
# arguments are the fixups folded into it, for series_message.
series_commit() {
	local rev=$1 tree=$2 parent=$3 msg an ae ad cn ce cd
	shift 3
	IFS=$'\x1f' read -r an ae ad cn ce cd < <(git -C "$KP_BASE_SRC" log -1 \
		--format='%an%x1f%ae%x1f%aI%x1f%cn%x1f%ce%x1f%cI' "$rev")
	msg=$(series_message "$rev" "$@")
	grep -q "^Signed-off-by: " <<<"$msg" ||
		msg=$(printf '%s\n\nSigned-off-by: %s <%s>\n' "$msg" "$an" "$ae")
	GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae GIT_AUTHOR_DATE=$ad \
	GIT_COMMITTER_NAME=$cn GIT_COMMITTER_EMAIL=$ce GIT_COMMITTER_DATE=$cd \
		git -C "$KP_BASE_SRC" commit-tree "$tree" -p "$parent" -m "$msg"
}

# The paragraphs of commit REV's body that start with "checkpatch:",
# separated by blank lines.
series_checkpatch_notes() {
	git -C "$KP_BASE_SRC" log -1 --format=%b "$1" |
		awk 'BEGIN { RS = "" } /^checkpatch:/ { printf "%s%s\n", n++ ? "\n" : "", $0 }'
}

# The message of patch REV with its fixups FIXUP... folded in.  Their
# "checkpatch:" paragraphs (the warnings the folded patch still carries,
# named and justified) replace the patch's own paragraphs that start with
# "checkpatch", which describe the patch as it was before its fixups; a
# paragraph of just "checkpatch: clean." drops those and adds nothing.
# They go before a Signed-off-by the message already has.  The message is
# the body of the last "amend!" among the fixups, if there is one.
series_message() {
	local rev=$1 f notes= from=$1 format=%B
	shift
	for f in "$@"; do
		notes+=$(series_checkpatch_notes "$f")$'\n\n'
		if git -C "$KP_BASE_SRC" log -1 --format=%s "$f" | grep -q '^amend! '; then
			from=$f format=%b
		fi
	done
	git -C "$KP_BASE_SRC" log -1 --format="$format" "$from" |
		NOTES=$notes awk 'BEGIN { RS = ""; ORS = "\n\n"
			n = split(ENVIRON["NOTES"], note, /\n\n+/)
			for (i = 1; i <= n; i++) {
				if (note[i] == "")
					continue
				replace = 1
				if (note[i] != "checkpatch: clean.")
					add[++nadd] = note[i]
			}
		}
		function flush() { for (i = 1; i <= nadd; i++) print add[i]; nadd = 0 }
		replace && /^checkpatch/ { next }
		/^Signed-off-by: / { flush() }
		{ print }
		END { flush() }'
}

# With fixups, each patch is its own change plus the changes of the fixups
# that name it, applied in order in a scratch index.  A change is the
# difference between a plan entry's composed tree and the one before it.
series_fold() {
	local plan=$1 rev tree action target i j head
	local -a revs trees actions targets folded
	while read -r rev tree action target; do
		revs+=("$rev") trees+=("$tree") actions+=("$action") targets+=("${target:-}")
	done <"$plan"
	export GIT_INDEX_FILE=$KP_TMP/series.index
	git -C "$KP_BASE_SRC" read-tree base
	head=$(git -C "$KP_BASE_SRC" rev-parse base)
	for i in "${!revs[@]}"; do
		[ "${actions[$i]}" = pick ] || continue
		series_pick "$i" || die "patch ${revs[$i]} does not apply after folding fixups"
		folded=()
		for j in "${!revs[@]}"; do
			[ "${actions[$j]}" = fixup ] && [ "${targets[$j]}" = "${revs[$i]}" ] || continue
			series_pick "$j" || die "fixup ${revs[$j]} does not apply on its patch"
			folded+=("${revs[$j]}")
		done
		head=$(series_commit "${revs[$i]}" "$(git -C "$KP_BASE_SRC" write-tree)" "$head" \
			"${folded[@]}") || die "cannot write the patch of ${revs[$i]}"
	done
	unset GIT_INDEX_FILE
	echo "$head"
}

# Apply plan entry I's change to the scratch index.
series_pick() {
	local i=$1 before
	if ((i == 0)); then
		before=$(git -C "$KP_BASE_SRC" rev-parse 'base^{tree}')
	else
		before=${trees[$((i - 1))]}
	fi
	git -C "$KP_BASE_SRC" diff --binary "$before" "${trees[$i]}" |
		git -C "$KP_BASE_SRC" apply --cached --3way --allow-empty -
}

write_series() {
	local head n
	head=$(series_commits)
	git -C "$KP_BASE_SRC" update-ref refs/kp/series "$head"
	n=$(git -C "$KP_BASE_SRC" rev-list --count base.."$head")
	rm -rf "$KP_SERIES_OUT"
	mkdir -p "$KP_SERIES_OUT"
	if [ "$n" = 0 ]; then
		stage "the project does not change the kernel tree yet: no patches"
		return 0
	fi
	series_sender git -C "$KP_BASE_SRC" format-patch -q --cover-letter --base=base \
		--thread=shallow -o "$KP_SERIES_OUT" base.."$head"
	series_cover "$KP_SERIES_OUT"/0000-cover-letter.patch
	ls "$KP_SERIES_OUT"
	stage "$n patches in ${KP_SERIES_OUT#"$KP_ROOT"/} against $(base_version)" \
		"(base commit $(git -C "$KP_BASE_SRC" rev-parse --short base))"
	series_checkpatch
}

# Run a git command as the one who sends the series (the cover letter's
# From:): the identity configured for the project, or, where git has none,
# the author of the project's last commit.  The base repository, where the
# series is written, has no identity of its own.
series_sender() {
	local name email
	if git -C "$KP_ROOT" var GIT_COMMITTER_IDENT >/dev/null 2>&1; then
		name=$(git -C "$KP_ROOT" config user.name || true)
		email=$(git -C "$KP_ROOT" config user.email || true)
	fi
	[ -n "${name:-}" ] || name=$(git -C "$KP_ROOT" log -1 --format=%an)
	[ -n "${email:-}" ] || email=$(git -C "$KP_ROOT" log -1 --format=%ae)
	GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email "$@"
}

# Fill in the cover letter from harness/series-cover.txt: first line is
# the subject, the rest the blurb.
series_cover() {
	local cover=$1 src=$KP_HARNESS/series-cover.txt subject blurb
	subject=$(head -n 1 "$src")
	blurb=$(tail -n +3 "$src"; printf '\nBase: %s.\n' "$(base_version)")
	python3 - "$cover" "$subject" "$blurb" <<'EOF'
import sys
path, subject, blurb = sys.argv[1:]
text = open(path).read()
text = text.replace('*** SUBJECT HERE ***', subject)
text = text.replace('*** BLURB HERE ***', blurb)
open(path, 'w').write(text)
EOF
}

series_checkpatch() {
	local p out=$KP_SERIES_OUT/checkpatch.txt bad=0
	: >"$out"
	for p in "$KP_SERIES_OUT"/0*.patch; do
		[ "$(basename "$p")" = 0000-cover-letter.patch ] && continue
		if ! perl "$KP_BASE_SRC/scripts/checkpatch.pl" --strict --no-tree -q \
			"$p" >>"$out" 2>&1; then
			bad=$((bad + 1))
		fi
	done
	if ((bad)); then
		warn "checkpatch --strict complains about $bad patch(es); see ${out#"$KP_ROOT"/}"
	else
		stage "checkpatch --strict: clean"
	fi
}

# Build the kernel at every patch of the series, for each arch asked for.
# The patches are checked out in turn in the project tree and built in its
# usual build directories, so each step is an incremental build; the tree
# is composed again at the end.  Every arch on every patch is hours of
# building, more than a sitting: a build that passed is written down in
# out/bisect/ARCH.built by what it built (the patch's tree and the sum of
# the config fragments, configure()'s), and a later run skips it.  An
# interrupted run goes on where it stopped, and a series changed at its
# end rebuilds only what changed.  Removing the file builds it all again.
bisect_series() {
	local head c i=0 n a bad=0 from built key skipped=0
	head=$(series_commits)
	n=$(git -C "$KP_BASE_SRC" rev-list --count base.."$head")
	[ "$n" = 0 ] && { stage "no patches to check"; return 0; }
	ensure_src_worktree
	mkdir -p "$KP_ROOT/out/bisect"
	# --last N: only the last N patches (the earlier ones built before).
	from=$((n - ${KP_LAST:-$n}))
	((from > 0)) || from=0
	for c in $(git -C "$KP_BASE_SRC" rev-list --reverse base.."$head"); do
		i=$((i + 1))
		((i > from)) || continue
		git -C "$KP_SRC" reset -q --hard "$c"
		for a in $KP_ARCHES; do
			build_vars project "$a" 0
			configure 0
			built=$KP_ROOT/out/bisect/$a.built
			key="$(git -C "$KP_SRC" rev-parse "$c^{tree}") $(cat "$KP_BUILD_OUT/kp.fragment.sum")"
			if grep -qxF "$key" "$built" 2>/dev/null; then
				skipped=$((skipped + 1))
				continue
			fi
			if run_step "[$i/$n] $a: $(git -C "$KP_SRC" log -1 --format=%s)" \
				"$KP_BUILD_OUT/build.log" kmake "$(basename "$KP_IMAGE")" modules; then
				echo "$key" >>"$built"
			else
				bad=$((bad + 1))
			fi
		done
	done
	compose
	((skipped == 0)) ||
		stage "$skipped build(s) skipped: built before from the same tree and config (out/bisect/ARCH.built)"
	((bad == 0)) || die "$bad build(s) failed along the series"
	stage "all $((n - from)) of the series' $n patches checked build on: $KP_ARCHES"
}
