//! `completion SHELL`: the completion script of a shell. For bash, zsh and fish the script asks
//! `kubectl-nestor __complete WORDS...` (the engine of `cmd::complete`, the one kubectl's
//! plugin completion uses too) for every candidate, so nested subcommands, flags, stack names
//! and layer ids complete alike everywhere. clap_complete's static bash script is not used: for
//! a binary name with a hyphen it names its functions `kubectl__nestor__subcmd__stack` in one
//! place and `kubectl__subcmd__nestor__subcmd__stack` in another, so nothing below the first
//! level completes (an open clap_complete bug). elvish and powershell keep clap_complete's
//! scripts (static: subcommands and flags, no stack names).

use crate::output::render::Printer;
use clap::Command;

use crate::error::{Exit, Result};

const BASH: &str = r#"# bash completion for kubectl-nestor: every candidate comes from `kubectl-nestor __complete`,
# the engine kubectl's plugin completion (`kubectl nestor <TAB>`) uses too.
#   source <(kubectl-nestor completion bash)
_kubectl_nestor() {
    local cur=${COMP_WORDS[COMP_CWORD]} words=() i w out last directive line strip=
    # Put back together what COMP_WORDBREAKS split at '=': `--output=js` arrives as
    # `--output` `=` `js`; readline then replaces only the text after the '='.
    for ((i = 1; i <= COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if ((${#words[@]} > 0)) && [[ $w == "=" || ${words[${#words[@]}-1]} == *= ]]; then
            words[${#words[@]}-1]+=$w
        else
            words+=("$w")
        fi
    done
    [[ ${words[${#words[@]}-1]} == *=* && ${words[${#words[@]}-1]} != "$cur" ]] && strip=1
    out=$("${COMP_WORDS[0]}" __complete "${words[@]}" 2>/dev/null) || return 0
    last=${out##*$'\n'}
    directive=${last#:}
    [[ $out == *$'\n'* ]] && out=${out%$'\n'*} || out=
    COMPREPLY=()
    while IFS= read -r line; do
        [[ -n $line ]] || continue
        line=${line%%$'\t'*}
        [[ -n $strip ]] && line=${line#*=}
        COMPREPLY+=("$line")
    done <<<"$out"
    if ((${#COMPREPLY[@]} == 0)); then
        case $directive in
            0) compopt -o default 2>/dev/null ;;
            16) compopt -o dirnames 2>/dev/null ;;
        esac
    fi
    return 0
}
complete -F _kubectl_nestor kubectl-nestor
"#;

const ZSH: &str = r#"#compdef kubectl-nestor
# zsh completion for kubectl-nestor: every candidate comes from `kubectl-nestor __complete`,
# the engine kubectl's plugin completion (`kubectl nestor <TAB>`) uses too.
#   source <(kubectl-nestor completion zsh)    or save it as _kubectl-nestor in $fpath
_kubectl_nestor() {
    local -a lines candidates
    local out directive line value
    out=$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
    lines=("${(@f)out}")
    directive=${lines[-1]#:}
    lines=("${(@)lines[1,-2]}")
    for line in "${lines[@]}"; do
        [[ -n $line ]] || continue
        value=${line%%$'\t'*}
        if [[ $line == *$'\t'* ]]; then
            candidates+=("${value//:/\\:}:${line#*$'\t'}")
        else
            candidates+=("${value//:/\\:}")
        fi
    done
    if (( ${#candidates} )); then
        _describe -t values 'kubectl-nestor' candidates
    elif [[ $directive == 16 ]]; then
        _files -/
    elif [[ $directive == 0 ]]; then
        _files
    fi
}
if [[ "${funcstack[1]}" == _kubectl_nestor ]]; then
    _kubectl_nestor "$@"
else
    compdef _kubectl_nestor kubectl-nestor
fi
"#;

const FISH: &str = r#"# fish completion for kubectl-nestor: every candidate comes from `kubectl-nestor __complete`,
# the engine kubectl's plugin completion (`kubectl nestor <TAB>`) uses too.
#   kubectl-nestor completion fish | source
function __kubectl_nestor_complete
    set -l cur (commandline -ct)
    set -l words (commandline -opc) "$cur"
    set -l out ($words[1] __complete $words[2..-1] 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    if test (count $out) -gt 0
        printf '%s\n' $out
    else if test "$directive" = 16
        __fish_complete_directories "$cur"
    else if test "$directive" = 0
        __fish_complete_path "$cur"
    end
end
complete -c kubectl-nestor -f -a '(__kubectl_nestor_complete)'
"#;

/// The script for `shell`; `root` is the clap definition (for clap_complete's shells).
// clap_complete::Shell is #[non_exhaustive]: shells nestor does not generate for are refused.
#[allow(clippy::wildcard_enum_match_arm)]
pub fn script(shell: clap_complete::Shell, mut root: Command) -> String {
    use clap_complete::Shell;
    match shell {
        Shell::Bash => BASH.to_string(),
        Shell::Zsh => ZSH.to_string(),
        Shell::Fish => FISH.to_string(),
        other => {
            let mut buffer = Vec::new();
            clap_complete::generate(other, &mut root, "kubectl-nestor", &mut buffer);
            String::from_utf8_lossy(&buffer).into_owned()
        }
    }
}

pub fn run(printer: &Printer, shell: clap_complete::Shell, root: Command) -> Result<Exit> {
    printer.out(&script(shell, root))?;
    Ok(Exit::Ok)
}
