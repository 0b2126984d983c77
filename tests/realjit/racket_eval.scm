;; The Scheme row of ci/bench/realjit.sh, loaded by `racket -l racket/base -f`:
;; Racket CS (Chez Scheme) compiles each evaluated lambda to machine code in
;; memory it stores to, and runs it. Prints "total 379810000".
(define ns (make-base-namespace))
(define (compiled k)
  (eval `(lambda (n) (for/fold ([s 0]) ([i (in-range n)]) (+ s (* i ,k)))) ns))
(printf "total ~a\n" (for/sum ([k (in-range 20)]) ((compiled k) 2000)))
