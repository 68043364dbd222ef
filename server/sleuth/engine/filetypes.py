"""File types for ``file_types`` (rg ``-t``): names of common languages and formats mapped to globs.

Sleuth accepts ripgrep's type names (``py``, ``js``, ``c``, ``rust``, ...) so a user who knows
``rg -t`` needs no manual, plus an extension form (``".cs"``, or a bare word that is no type
name such as ``"vue"``) that assistants tend to send. Type globs match a file's base name only and
never a directory, as in ripgrep's ``ignore::types``; a selected type *whitelists* the files it
matches (it even beats the hidden rule, as in rg) and every other file is skipped.
The table follows ripgrep's default type list for the languages people search most.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sleuth.engine.errors import BadArgs
from sleuth.engine.ignore_rules import segment_regex

__all__ = ["TYPES", "TypeMatcher", "type_globs"]

# name -> space-separated globs (base-name globs: ``*``, ``?``, ``[...]``).
_TABLE = """
agda *.agda *.lagda
asciidoc *.adoc *.asc *.asciidoc
asm *.asm *.s *.S
awk *.awk
bazel *.bazel *.bzl *.BUILD *.bazelrc BUILD MODULE.bazel WORKSPACE WORKSPACE.bazel
c *.[chH] *.[chH].in *.cats
clojure *.clj *.cljc *.cljs *.cljx
cmake *.cmake CMakeLists.txt
coffeescript *.coffee
config *.cfg *.conf *.config *.ini
cpp *.[ChH] *.cc *.[ch]pp *.[ch]xx *.hh *.inl *.[ChH].in *.cc.in *.[ch]pp.in *.[ch]xx.in *.hh.in
cs *.cs
csharp *.cs
cshtml *.cshtml
css *.css *.scss
csv *.csv
cuda *.cu *.cuh
cython *.pyx *.pxi *.pxd
d *.d
dart *.dart
devicetree *.dts *.dtsi
diff *.patch *.diff
docker *Dockerfile*
dts *.dts *.dtsi
elisp *.el
elixir *.ex *.eex *.exs
elm *.elm
erb *.erb
erlang *.erl *.hrl
fish *.fish
fortran *.f *.F *.f77 *.F77 *.pfo *.f90 *.F90 *.f95 *.F95
fsharp *.fs *.fsx *.fsi
go *.go
gradle *.gradle
groovy *.groovy *.gradle
h *.h *.hh *.hpp
haskell *.hs *.lhs *.cpphs *.c2hs *.hsc
hs *.hs *.lhs
html *.htm *.html *.ejs
java *.java *.jsp *.jspx *.properties
jinja *.j2 *.jinja *.jinja2
jl *.jl
js *.js *.jsx *.vue *.cjs *.mjs
json *.json composer.lock
jsonl *.jsonl
julia *.jl
jupyter *.ipynb *.jpynb
kotlin *.kt *.kts
less *.less
lisp *.el *.jl *.lisp *.lsp *.sc *.scm
lock *.lock package-lock.json
log *.log
lua *.lua
m4 *.ac *.m4
make [Gg][Nn][Uu]makefile [Mm]akefile [Gg][Nn][Uu]makefile.am [Mm]akefile.am [Gg][Nn][Uu]makefile.in [Mm]akefile.in *.mk *.mak
markdown *.markdown *.md *.mdown *.mdwn *.mkd *.mkdn
matlab *.m
md *.markdown *.md *.mdown *.mdwn *.mkd *.mkdn
meson meson.build meson_options.txt
minified *.min.html *.min.css *.min.js
ml *.ml
msbuild *.csproj *.fsproj *.vcxproj *.proj *.props *.targets *.sln
nim *.nim *.nimf *.nimble *.nims
nix *.nix
objc *.h *.m
objcpp *.h *.mm
ocaml *.ml *.mli *.mll *.mly
org *.org *.org_archive
pascal *.pas *.dpr *.lpr *.pp *.inc
pdf *.pdf
perl *.perl *.pl *.PL *.plh *.plx *.pm *.t
php *.php *.php3 *.php4 *.php5 *.php7 *.php8 *.pht *.phtml
protobuf *.proto
ps *.cdxml *.ps1 *.ps1xml *.psd1 *.psm1
py *.py
r *.R *.r *.Rmd *.Rnw
racket *.rkt
readme README* *README
rst *.rst
ruby config.ru Gemfile .irbrc Rakefile *.gemspec *.rb *.rbw
rust *.rs
sass *.sass *.scss
scala *.scala *.sbt
sh .login .logout .profile profile .bash_login bash_login .bash_logout bash_logout .bash_profile bash_profile .bashrc bashrc *.bashrc .cshrc *.cshrc .kshrc *.kshrc .tcshrc .zshenv zshenv .zlogin zlogin .zlogout zlogout .zprofile zprofile .zshrc zshrc *.bash *.csh *.ksh *.sh *.tcsh *.zsh
sql *.sql *.psql
svelte *.svelte
svg *.svg
swift *.swift
tex *.tex *.ltx *.cls *.sty *.bib *.dtx *.ins
tf *.tf *.auto.tfvars terraform.tfvars *.tf.json *.auto.tfvars.json terraform.tfvars.json *.terraformrc terraform.rc *.tfrc *.terraform.lock.hcl
thrift *.thrift
toml *.toml Cargo.lock
ts *.ts *.tsx *.cts *.mts
txt *.txt
vb *.vb
verilog *.v *.vh *.sv *.svh
vhdl *.vhd *.vhdl
vim *.vim .vimrc .gvimrc vimrc gvimrc _vimrc _gvimrc
xml *.xml *.xml.dist *.dtd *.xsl *.xslt *.xsd *.xjb *.rng *.sch *.xhtml
yaml *.yaml *.yml
zig *.zig
zsh .zshenv zshenv .zlogin zlogin .zlogout zlogout .zprofile zprofile .zshrc zshrc *.zsh
"""

TYPES: dict[str, tuple[str, ...]] = {
    parts[0]: tuple(parts[1:]) for parts in (line.split() for line in _TABLE.strip().splitlines())
}

_EXT_FORM = re.compile(r"\.?[A-Za-z0-9_+\-]+(?:\.[A-Za-z0-9_+\-]+)*")


def type_globs(name: str) -> tuple[str, ...]:
    """The globs of one ``file_types`` item: a type name, ``.ext``, or a bare extension.

    Raises :class:`BadArgs` for anything that is neither (e.g. ``"*.py"`` or ``"a/b"``).
    """
    item = name.strip()
    if item in TYPES:
        return TYPES[item]
    if item.startswith("*.") and _EXT_FORM.fullmatch(item[1:]):
        item = item[1:]
    if item and _EXT_FORM.fullmatch(item):
        return ("*." + item.lstrip("."),)
    raise BadArgs(
        f"Unknown file type {name!r}.",
        hint="Use a type name such as py, js, ts, c, cpp, rust, go, java, md, or an extension such as '.cs'.",
    )


class TypeMatcher:
    """Matches base names against the union of the selected types' globs (one regex call)."""

    __slots__ = ("names", "_regex")

    def __init__(self, names: Iterable[str]) -> None:
        self.names = tuple(names)
        globs: list[str] = []
        for name in self.names:
            for glob in type_globs(name):
                if glob not in globs:
                    globs.append(glob)
        self._regex = re.compile("|".join(f"(?:{segment_regex(g)})" for g in globs), re.DOTALL) if globs else None

    def __bool__(self) -> bool:
        return self._regex is not None

    def matches(self, basename: str) -> bool:
        """True when ``basename`` has one of the selected types."""
        return self._regex is not None and self._regex.fullmatch(basename) is not None
