package main

import (
	"database/sql"
	"fmt"
	"os"
	"time"

	_ "coreportal/internal/store" // cp_lower
	_ "modernc.org/sqlite"
)

func main() {
	db, err := sql.Open("sqlite", "file:"+os.Args[1]+"?mode=ro")
	if err != nil {
		panic(err)
	}
	q := os.Args[2]
	rows, err := db.Query("EXPLAIN " + q)
	if err != nil {
		panic(err)
	}
	for rows.Next() {
		var addr, p1, p2, p3 int
		var op string
		var p4, p5, c any
		rows.Scan(&addr, &op, &p1, &p2, &p3, &p4, &p5, &c)
		if op == "Function" || op == "PureFunc" || op == "Column" || op == "OpenRead" {
			fmt.Println(addr, op, p1, p2, p3, p4)
		}
	}
	for i := 0; i < 3; i++ {
		st := time.Now()
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			panic(err)
		}
		fmt.Println(n, time.Since(st))
	}
}
