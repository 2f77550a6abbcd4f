// SPDX-License-Identifier: GPL-2.0
/// Writable module parameters are read with READ_ONCE().
///
/// A parameter whose permissions carry a write bit (0644, 0200, S_IWUSR,
/// S_IRWXU, ...) can be changed through /sys/module/<module>/parameters/
/// while code reads it, with no lock in common. A plain read is a data
/// race: the compiler may read it twice (a check and a use that disagree)
/// or tear it. Reported: every use of such a parameter inside a function
/// other than READ_ONCE(v), WRITE_ONCE(v, ...) or &v (handed to code that
/// knows). Read-only parameters (0444, 0) are not judged.
///
// Confidence: High (module_param() and its permissions are in the file;
// module_param_named() and _cb() are not followed).
// Options: --no-includes --include-headers

virtual report

@param@
identifier v;
expression t, perm;
type T;
declarer name module_param;
@@
(
module_param(v, t, perm);
|
module_param(v, T, perm);
)

@script:python writable@
perm << param.perm;
@@
import re
# Write bits by name, or in any octal constant of the expression.
w = re.search(r'S_IW|S_IRWX', perm) is not None or \
	any(int(n, 8) & 0o222 for n in re.findall(r'\b0[0-7]+\b', perm))
if not w:
	cocci.include_match(False)

@use depends on report@
identifier param.v, fn;
position p;
@@
fn(...)
{
<...
(
 READ_ONCE(v)
|
 WRITE_ONCE(v, ...)
|
 &v
|
 v@p
)
...>
}

@script:python depends on report@
p << use.p;
v << param.v;
@@
print("%s:%s:%s: module-param-read-once: writable module parameter %s used without READ_ONCE()"
      % (p[0].file, p[0].line, p[0].column, v))
