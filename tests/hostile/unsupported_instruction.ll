; Uses the va_arg instruction, which the checker does not model.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @first(ptr %ap) {
entry:
  %v = va_arg ptr %ap, i32
  ret i32 %v
}

define i32 @main() {
entry:
  %ap = alloca [24 x i8], align 16
  %v = call i32 @first(ptr %ap)
  %z = and i32 %v, 0
  ret i32 %z
}
